import Foundation
import SignerKit
import Testing

@Suite("RFC 3339 date-times")
struct RFC3339DateTimeTests {
    @Test("valid forms: offsets, fractions, lower-case t and z, leap years, a leap second at 23:59:60 UTC")
    func valid() throws {
        let cases: [(String, Int64)] = [
            ("1970-01-01T00:00:00Z", 0),
            ("2021-09-30T16:25:24Z", 1_633_019_124),
            ("2021-09-30T18:25:24+02:00", 1_633_019_124),
            ("2021-09-30T11:55:24-04:30", 1_633_019_124),
            ("2021-09-30t16:25:24z", 1_633_019_124),
            ("2021-09-30T16:25:24.999999Z", 1_633_019_124),
            ("2024-02-29T00:00:00Z", 1_709_164_800),
            ("2000-02-29T12:00:00Z", 951_825_600),
            ("2016-12-31T23:59:60Z", 1_483_228_800),
            ("2017-01-01T00:59:60+01:00", 1_483_228_800),
            ("1969-12-31T23:59:59Z", -1),
            ("0000-01-01T00:00:00Z", -62_167_219_200),
            ("9999-12-31T23:59:59Z", 253_402_300_799),
        ]
        for (text, seconds) in cases {
            let value = try RFC3339DateTime(text)
            #expect(value.unixSeconds == seconds, "\(text)")
            #expect(value.text == text)
            #expect(value.description == text)
        }
        let fraction = try RFC3339DateTime("2021-09-30T16:25:24.25Z")
        #expect(fraction.date.timeIntervalSince1970 == 1_633_019_124.25)
        #expect(try RFC3339DateTime("2021-09-30T16:25:24Z") != RFC3339DateTime("2021-09-30T18:25:24+02:00"))
    }

    @Test("invalid forms name the component")
    func invalid() {
        let cases: [(String, RFC3339DateTimeError)] = [
            ("", .malformed(.year)),
            ("21-09-30T16:25:24Z", .malformed(.year)),
            ("2021/09/30T16:25:24Z", .malformed(.year)),
            ("2021-9-30T16:25:24Z", .malformed(.month)),
            ("2021-13-01T00:00:00Z", .outOfRangeComponent(.month)),
            ("2021-00-01T00:00:00Z", .outOfRangeComponent(.month)),
            ("2021-04-31T00:00:00Z", .outOfRangeComponent(.day)),
            ("1900-02-29T00:00:00Z", .outOfRangeComponent(.day)),
            ("2021-09-00T00:00:00Z", .outOfRangeComponent(.day)),
            ("2021-09-30 16:25:24Z", .malformed(.separator)),
            ("2021-09-30T16:25Z", .malformed(.minute)),
            ("2021-09-30T16:60:00Z", .outOfRangeComponent(.minute)),
            ("2021-09-30T16:25:61Z", .outOfRangeComponent(.second)),
            ("2021-06-30T23:59:60+01:00", .outOfRangeComponent(.second)),
            ("2021-09-30T16:25:24.Z", .malformed(.fraction)),
            ("2021-09-30T16:25:24", .malformed(.offset)),
            ("2021-09-30T16:25:24+0200", .malformed(.offset)),
            ("2021-09-30T16:25:24+24:00", .outOfRangeComponent(.offset)),
            ("2021-09-30T16:25:24UTC", .malformed(.offset)),
            ("2021-09-30T16:25:24Z ", .trailingText),
            ("２021-09-30T16:25:24Z", .malformed(.year)),
        ]
        for (text, expected) in cases {
            let error = #expect(throws: RFC3339DateTimeError.self, "\(text)") { try RFC3339DateTime(text) }
            #expect(error == expected, "\(text)")
        }
    }

    @Test("a date writes as UTC, with milliseconds only when it has them, and parses back to itself")
    func fromDate() throws {
        #expect(try RFC3339DateTime(Date(timeIntervalSince1970: 1_633_019_124)).text == "2021-09-30T16:25:24Z")
        #expect(try RFC3339DateTime(Date(timeIntervalSince1970: 1_633_019_124.25)).text == "2021-09-30T16:25:24.250Z")
        #expect(try RFC3339DateTime(Date(timeIntervalSince1970: -1)).text == "1969-12-31T23:59:59Z")
        #expect(try RFC3339DateTime(Date(timeIntervalSince1970: 951_825_600)).text == "2000-02-29T12:00:00Z")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let seconds = Int64.random(in: -62_167_219_200..<253_402_300_800, using: &generator)
            let value = try RFC3339DateTime(Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(value.unixSeconds == seconds, "\(value.text)")
            #expect(try RFC3339DateTime(value.text) == value)
        }
        #expect(throws: RFC3339DateTimeError.outOfRange) { try RFC3339DateTime(Date(timeIntervalSince1970: 3e11)) }
        #expect(throws: RFC3339DateTimeError.outOfRange) { try RFC3339DateTime(Date(timeIntervalSince1970: -7e10)) }
    }
}
