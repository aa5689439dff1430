import Foundation
import SignerKitService
import Testing

@Suite("Audit and log timestamps")
struct AuditTimestampTests {
    @Test("digit by digit: Foundation's ISO 8601 date and time, then the milliseconds")
    func matchesFoundation() {
        let seconds = Date.ISO8601FormatStyle()
        var generator = SystemRandomNumberGenerator()
        var instants: [Int64] = [0, 951_782_400_500, 1_798_761_599_999, 4_102_444_800_001]  // 2000-02-29, 2026-12-31
        for _ in 0..<1000 { instants.append(Int64.random(in: 0...4_102_444_800_000, using: &generator)) }
        for milliseconds in instants {
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let whole = Date(timeIntervalSince1970: Double(milliseconds / 1000))
            let fraction = String(milliseconds % 1000)
            let expected =
                whole.formatted(seconds).dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
                + "Z"
            #expect(AuditLog.timestamp(date) == expected, "\(milliseconds)")
        }
        #expect(AuditLog.timestamp(Date(timeIntervalSince1970: 59.9996)) == "1970-01-01T00:01:00.000Z", "rounds up")
    }
}
