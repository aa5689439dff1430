import EthereumPrimitives
import Testing

/// JSON written as Swift literals equals the same JSON parsed from text.
@Suite struct JSONValueLiteralTests {
    @Test func everyKindOfLiteral() throws {
        let value: JSONValue = [
            "name": "Ronin",
            "count": 3,
            "negative": -42,
            "ok": true,
            "no": false,
            "nothing": .null,
            "list": [1, "two", [3], [:], []],
            "nested": ["inner": ["deep": 0]],
        ]
        let parsed = try JSONValue(
            parsing: """
                {"name":"Ronin","count":3,"negative":-42,"ok":true,"no":false,"nothing":null,
                 "list":[1,"two",[3],{},[]],"nested":{"inner":{"deep":0}}}
                """)
        #expect(value == parsed)
        #expect(value.objectValue?.keys == ["name", "count", "negative", "ok", "no", "nothing", "list", "nested"])
    }

    @Test func integerLiteralsKeepTheirExactText() {
        let cases: [(JSONValue, String)] = [
            (0, "0"),
            (-1, "-1"),
            (9_223_372_036_854_775_807, "9223372036854775807"),
            (-9_223_372_036_854_775_808, "-9223372036854775808"),
            (18_446_744_073_709_551_615, "18446744073709551615"),
            (18_446_744_073_709_551_616, "18446744073709551616"),
            (9_999_999_999_999_999_999, "9999999999999999999"),
            (10_000_000_000_000_000_000, "10000000000000000000"),
            (100_000_000_000_000_000_000_000_000_000_000_000_005, "100000000000000000000000000000000000005"),
            (
                115_792_089_237_316_195_423_570_985_008_687_907_853_269_984_665_640_564_039_457_584_007_913_129_639_935,
                "115792089237316195423570985008687907853269984665640564039457584007913129639935"
            ),
            (
                -57_896_044_618_658_097_711_785_492_504_343_953_926_634_992_332_820_282_019_728_792_003_956_564_819_968,
                "-57896044618658097711785492504343953926634992332820282019728792003956564819968"
            ),
            // Past 256 bits too (2^300): JSON numbers have no size.
            (
                2_037_035_976_334_486_086_268_445_688_409_378_161_051_468_393_665_936_250_636_140_449_354_381_299_763_336_706_183_397_376,
                "2037035976334486086268445688409378161051468393665936250636140449354381299763336706183397376"
            ),
        ]
        for (value, text) in cases { #expect(value == .number(text)) }
    }

    @Test func objectLiteralsKeepTheOrderWritten() {
        let object: JSONObject = ["z": 1, "a": 2, "m": 3]
        #expect(object.keys == ["z", "a", "m"])
        #expect(object["a"] == 2)
    }

    @Test func nilInAnOptionalPositionStaysAbsent() {
        // Not ExpressibleByNilLiteral, so `nil` only ever means Optional.none: a null filter keeps working.
        let values: [JSONValue?] = [.null, nil, 1]
        #expect(values.map { $0.flatMap { $0 == .null ? nil : $0 } } == [nil, nil, 1])
        var object: JSONObject = ["memo": "x"]
        object["memo"] = nil
        #expect(object.count == 0)
        object["memo"] = .null
        #expect(object["memo"] == JSONValue.null)
    }

    @Test func duplicateKeyInALiteralTraps() async {
        await #expect(processExitsWith: .failure) {
            let object: JSONValue = ["a": 1, "a": 2]
            _ = object
        }
    }
}
