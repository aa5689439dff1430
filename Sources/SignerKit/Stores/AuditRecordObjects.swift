import EthereumPrimitives
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CallRecord {
    /// The records of one request as every audit trail stores them (a line of the file, a ledger row): `time`
    /// (``AuditTimestamp/rfc3339(_:)``), `requestId`, `call` (the index in the request), then each record's
    /// ``json`` members.
    public static func auditObjects(_ records: [CallRecord], requestID: String, at time: Date) -> [JSONObject] {
        let stamp = AuditTimestamp.rfc3339(time)
        return records.enumerated().map { index, record in
            var object = JSONObject([
                "time": .string(stamp), "requestId": .string(requestID), "call": .number(String(index)),
            ])
            for member in record.json.members { object[member.key] = member.value }
            return object
        }
    }
}

/// The time of an audit record.
public enum AuditTimestamp {
    /// RFC 3339 UTC to the nearest millisecond, e.g. `2026-12-05T01:26:20.709Z`: written digit by digit
    /// from `gmtime_r`, since every audit record has one (a Foundation format style costs several
    /// microseconds each).
    public static func rfc3339(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (whole, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        var seconds = time_t(whole)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00.000Z" }
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var position = 0
            func put(_ value: Int, digits: Int) {
                var remaining = value
                for offset in stride(from: digits - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                position += digits
            }
            func put(_ character: Unicode.Scalar) {
                buffer[position] = UInt8(ascii: character)
                position += 1
            }
            put(Int(parts.tm_year) + 1900, digits: 4)
            put("-")
            put(Int(parts.tm_mon) + 1, digits: 2)
            put("-")
            put(Int(parts.tm_mday), digits: 2)
            put("T")
            put(Int(parts.tm_hour), digits: 2)
            put(":")
            put(Int(parts.tm_min), digits: 2)
            put(":")
            put(Int(parts.tm_sec), digits: 2)
            put(".")
            put(Int(fraction), digits: 3)
            put("Z")
            return position
        }
    }

    /// The time ``rfc3339(_:)`` wrote (`2026-12-05T01:26:20.709Z`; the fraction may be absent or of 1–9 digits),
    /// or `nil` when `text` is not of that form: the time a recorded call is decided again at in a replay.
    public static func date(rfc3339 text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), (22...30).contains(bytes.count),
                let digits = number(20..<bytes.count - 1)
            else { return nil }
            fraction = Double(digits) / pow(10, Double(bytes.count - 21))
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
