import Foundation

/// An RFC 3339 `date-time` (`2021-09-30T16:25:24Z`, `2021-09-30T18:25:24.5+02:00`): the text exactly as
/// written, and the instant it names.
///
/// Parsing is strict: `date-fullyear "-" date-month "-" date-mday "T" time-hour ":" time-minute ":"
/// time-second [ "." 1*DIGIT ] ( "Z" / ( "+" / "-" ) time-hour ":" time-minute )`, with `T` and `Z` also
/// accepted in lower case (RFC 3339 § 5.6), every component range-checked (days per month, leap years) and
/// a leap second (`:60`) accepted only where it falls at 23:59:60 UTC. Two values are equal when their text
/// is equal, so a message keeps its exact bytes through parsing and building.
public struct RFC3339DateTime: Sendable, Hashable, CustomStringConvertible {
    /// The text as written.
    public let text: String
    /// The instant (a leap second counts as the first instant of the next minute).
    public let date: Date
    /// Whole seconds since 1970-01-01T00:00:00Z (the fraction dropped, rounding down).
    public let unixSeconds: Int64

    /// Parses `text` strictly.
    ///
    /// - Throws: ``RFC3339DateTimeError`` naming the component.
    public init(_ text: some StringProtocol) throws(RFC3339DateTimeError) {
        let bytes = Array(text.utf8)
        let parsed = try Self.parse(bytes)
        self.text = String(text)
        self.unixSeconds = parsed.seconds
        self.date = Date(timeIntervalSince1970: TimeInterval(parsed.seconds) + parsed.fraction)
    }

    /// The UTC text of `date` (`2026-01-01T00:00:00Z`; milliseconds are written when the date has any,
    /// `…00.250Z`).
    ///
    /// - Throws: ``RFC3339DateTimeError/outOfRange`` for dates before year 0000 or after 9999.
    public init(_ date: Date) throws(RFC3339DateTimeError) {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval >= -62_167_219_200, interval < 253_402_300_800 else {
            throw .outOfRange
        }
        let millisecondsTotal = (interval * 1000).rounded(.down)
        let whole = Int64((millisecondsTotal / 1000).rounded(.down))
        let milliseconds = Int64(millisecondsTotal) - whole * 1000
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        text += "-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60))"
        text += ":\(two(secondOfDay % 60))"
        if milliseconds != 0 {
            let digits = String(milliseconds)
            text += "." + String(repeating: "0", count: 3 - digits.count) + digits
        }
        text += "Z"
        do { try self.init(text) } catch { throw .outOfRange }
    }

    /// The text as written.
    public var description: String { text }

    // MARK: - Parsing

    private static func parse(_ b: [UInt8]) throws(RFC3339DateTimeError) -> (seconds: Int64, fraction: Double) {
        var index = 0
        func digits(_ count: Int, _ component: RFC3339DateTimeError.Component) throws(RFC3339DateTimeError) -> Int64 {
            guard index + count <= b.count else { throw .malformed(component) }
            var value: Int64 = 0
            for byte in b[index..<(index + count)] {
                guard URIGrammar.isDigit(byte) else { throw .malformed(component) }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func literal(_ options: [UInt8], _ component: RFC3339DateTimeError.Component) throws(RFC3339DateTimeError) {
            guard index < b.count, options.contains(b[index]) else { throw .malformed(component) }
            index += 1
        }
        let year = try digits(4, .year)
        try literal([0x2D], .year)
        let month = try digits(2, .month)
        try literal([0x2D], .month)
        let day = try digits(2, .day)
        try literal([UInt8(ascii: "T"), UInt8(ascii: "t")], .separator)
        let hour = try digits(2, .hour)
        try literal([0x3A], .hour)
        let minute = try digits(2, .minute)
        try literal([0x3A], .minute)
        let second = try digits(2, .second)
        var fraction = 0.0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, URIGrammar.isDigit(b[index]) { index += 1 }
            guard index > start else { throw .malformed(.fraction) }
            fraction = Double("0." + String(decoding: b[start..<index], as: UTF8.self)) ?? 0
        }
        guard index < b.count else { throw .malformed(.offset) }
        var offsetMinutes: Int64 = 0
        switch b[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = b[index] == UInt8(ascii: "+") ? 1 : -1
            index += 1
            let offsetHour = try digits(2, .offset)
            try literal([0x3A], .offset)
            let offsetMinute = try digits(2, .offset)
            guard offsetHour <= 23, offsetMinute <= 59 else { throw .outOfRangeComponent(.offset) }
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
        default:
            throw .malformed(.offset)
        }
        guard index == b.count else { throw .trailingText }
        guard (1...12).contains(month) else { throw .outOfRangeComponent(.month) }
        guard day >= 1, day <= daysIn(month: month, year: year) else { throw .outOfRangeComponent(.day) }
        guard hour <= 23 else { throw .outOfRangeComponent(.hour) }
        guard minute <= 59 else { throw .outOfRangeComponent(.minute) }
        guard second <= 60 else { throw .outOfRangeComponent(.second) }
        let local = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        let utc = local - offsetMinutes * 60
        if second == 60 {
            // A leap second is the 61st second of 23:59 UTC.
            let previous = utc - 60
            let secondOfDay = ((previous % 86_400) + 86_400) % 86_400
            guard secondOfDay == 86_340 else { throw .outOfRangeComponent(.second) }
        }
        return (utc, fraction)
    }

    private static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (years 0…9999, so no overflow).
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Why a text is not an RFC 3339 `date-time`.
public enum RFC3339DateTimeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A part of a `date-time`.
    public enum Component: String, Sendable, Equatable {
        /// `date-fullyear` (four digits) and its `-`.
        case year
        /// `date-month` (two digits) and its `-`.
        case month
        /// `date-mday` (two digits).
        case day
        /// The `T` between date and time.
        case separator = "T separator"
        /// `time-hour` (two digits) and its `:`.
        case hour
        /// `time-minute` (two digits) and its `:`.
        case minute
        /// `time-second` (two digits).
        case second
        /// `time-secfrac` (`.` and at least one digit).
        case fraction
        /// `time-offset` (`Z` or `±hh:mm`).
        case offset
    }

    /// The component is not where it should be or has the wrong form.
    case malformed(Component)
    /// The component is out of its range (month 13, February 30, hour 24, a leap second not at 23:59:60 UTC).
    case outOfRangeComponent(Component)
    /// Text follows the offset.
    case trailingText
    /// A date outside years 0000–9999 cannot be written.
    case outOfRange

    /// A short explanation.
    public var description: String {
        switch self {
        case .malformed(let component): "not an RFC 3339 date-time (\(component.rawValue) malformed or missing)"
        case .outOfRangeComponent(let component): "not an RFC 3339 date-time (\(component.rawValue) out of range)"
        case .trailingText: "not an RFC 3339 date-time (text after the time offset)"
        case .outOfRange: "date outside years 0000-9999"
        }
    }
}
