import Foundation
import SignerKitSupport

/// `Retry-After` (RFC 9110 §10.2.3): delta-seconds or an HTTP date, read with overflow checks and capped.
///
/// ```swift
/// RetryAfter.delay("120", cap: .seconds(2))                          // 2 s
/// RetryAfter.delay("1e16", cap: .seconds(2))                         // 2 s (no overflow, no trap)
/// RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: later, cap: .seconds(2))   // .zero (in the past)
/// RetryAfter.delay("soon", cap: .seconds(2))                         // nil
/// ```
public enum RetryAfter {
    /// The wait `value` asks for, at most `cap`; `nil` when it is neither a number of seconds nor an HTTP date.
    ///
    /// Seconds may carry a fraction or an exponent (`0.25`, `1e3`, leniently); a negative number, a date in
    /// the past and `0` give `.zero`. Nothing is converted before it is compared with `cap`, so any
    /// magnitude is safe.
    public static func delay(_ value: String, now: Date = Date(), cap: Duration) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let limit = max(cap, .zero)
        if let seconds = seconds(text) { return clamp(seconds, cap: limit) }
        guard let date = HTTPDate.parse(text) else { return nil }
        return clamp(date.timeIntervalSince(now), cap: limit)
    }

    /// `seconds` as a duration in `0...cap`.
    static func clamp(_ seconds: Double, cap: Duration) -> Duration {
        guard seconds.isFinite else { return seconds > 0 ? cap : .zero }
        guard seconds > 0 else { return .zero }
        let capSeconds = cap.secondsValue
        guard seconds < capSeconds else { return cap }
        // Below the cap (a Duration), so the conversion cannot overflow.
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// A decimal number: digits, an optional fraction, an optional exponent; `nil` otherwise.
    static func seconds(_ text: String) -> Double? {
        var sawDigit = false
        var state = 0  // 0 integer, 1 fraction, 2 exponent sign, 3 exponent digits
        for (index, c) in text.utf8.enumerated() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if state == 2 { state = 3 }
                if state < 2 { sawDigit = true }
            case UInt8(ascii: "-") where index == 0, UInt8(ascii: "+") where index == 0:
                continue
            case UInt8(ascii: "."):
                guard state == 0 else { return nil }
                state = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard state < 2, sawDigit else { return nil }
                state = 2
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard state == 2 else { return nil }
            default:
                return nil
            }
        }
        guard sawDigit, state != 2, text.utf8.count <= 64 else { return nil }
        return Double(text)
    }
}

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The instant `text` names, or `nil` when it is not an HTTP date (or names an impossible one).
    public static func parse(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { $0.lowercased() }
        return parseForms(tokens)
    }

    /// The three forms over the tokens (split at spaces and commas, lower-cased).
    private static func parseForms(_ tokens: [String]) -> Date? {
        if tokens.count == 6, tokens[5] == "gmt" {
            // IMF-fixdate: sun 06 nov 1994 08:49:37 gmt
            guard let day = number(tokens[1], digits: 2...2), let month = months.firstIndex(of: tokens[2]),
                let year = number(tokens[3], digits: 4...4), let time = clock(tokens[4])
            else { return nil }
            return date(year: year, month: month + 1, day: day, time: time)
        }
        if tokens.count == 4, tokens[3] == "gmt" {
            // RFC 850: sunday 06-nov-94 08:49:37 gmt (two-digit years: 70–99 → 19xx, else 20xx)
            let parts = tokens[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let day = number(parts[0], digits: 2...2),
                let month = months.firstIndex(of: parts[1]),
                let short = number(parts[2], digits: 2...2), let time = clock(tokens[2])
            else { return nil }
            return date(year: short >= 70 ? 1900 + short : 2000 + short, month: month + 1, day: day, time: time)
        }
        if tokens.count == 5 {
            // asctime: sun nov  6 08:49:37 1994
            guard let month = months.firstIndex(of: tokens[1]), let day = number(tokens[2], digits: 1...2),
                let time = clock(tokens[3]), let year = number(tokens[4], digits: 4...4)
            else { return nil }
            return date(year: year, month: month + 1, day: day, time: time)
        }
        return nil
    }

    /// A non-negative decimal of `digits` digits (no sign, so no overflow: at most 4 digits).
    private static func number(_ text: String, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// `hh:mm:ss` in range (a leap second 60 is accepted).
    private static func clock(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let h = number(parts[0], digits: 2...2), let m = number(parts[1], digits: 2...2),
            let s = number(parts[2], digits: 2...2), h < 24, m < 60, s <= 60
        else { return nil }
        return (h, m, s)
    }

    /// The instant, from a proleptic Gregorian civil date (days-from-civil), or `nil` for an impossible day.
    private static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...lengths[month - 1]).contains(day) else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = month + (month > 2 ? -3 : 9)
        let dayOfYear = (153 * m + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + time.0 * 3600 + time.1 * 60 + time.2
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
