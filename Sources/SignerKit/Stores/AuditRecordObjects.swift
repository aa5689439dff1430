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
}
