import EthereumPrimitives
import Foundation
import Testing

/// `Encodable` values to `JSONValue`: exact numbers, canonical strings for the Ethereum types, order kept.
@Suite struct JSONValueEncoderTests {
    enum Side: String, Encodable { case buy, sell }

    struct Leg: Encodable {
        let token: Address
        let amount: UInt256
    }

    struct Everything: Encodable {
        let text: String
        let flag: Bool
        let small: Int8
        let int: Int
        let minimum: Int64
        let maximum: UInt64
        let half: Double
        let single: Float
        let wei: UInt256
        let owner: Address
        let salt: Bytes32
        let side: Side
        let legs: [Leg]
        let present: String?
        let absent: String?
        let matrix: [[UInt8]]
    }

    static let owner = try? Address("0xd761024b4ef3336becd6e802884d0b986c29b35a")

    @Test func encodesEveryKindExactly() throws {
        let owner = try #require(Self.owner)
        let salt = try Bytes32(hex: "0x" + String(repeating: "ab", count: 32))
        let value = Everything(
            text: "hi \"there\"", flag: true, small: -128, int: 42, minimum: .min, maximum: .max, half: 1.5,
            single: 0.25, wei: .max, owner: owner, salt: salt, side: .sell,
            legs: [Leg(token: owner, amount: 1_000_000_000_000_000_000_000)], present: "here", absent: nil,
            matrix: [[1, 2], []])
        let encoded = try JSONValueEncoder().encode(value)
        let expected: JSONValue = [
            "text": "hi \"there\"",
            "flag": true,
            "small": -128,
            "int": 42,
            "minimum": -9_223_372_036_854_775_808,
            "maximum": 18_446_744_073_709_551_615,
            "half": .number("1.5"),
            "single": .number("0.25"),
            "wei": "115792089237316195423570985008687907853269984665640564039457584007913129639935",
            "owner": "0xd761024b4ef3336BecD6E802884D0B986C29B35a",
            "salt": .string("0x" + String(repeating: "ab", count: 32)),
            "side": "sell",
            "legs": [["token": "0xd761024b4ef3336BecD6E802884D0B986C29B35a", "amount": "1000000000000000000000"]],
            "present": "here",
            "matrix": [[1, 2], []],
        ]
        #expect(encoded == expected)
        // Members in declaration order, so EIP-712 hashing meets them in its types' order.
        #expect(encoded.objectValue?.keys.first == "text")
        #expect(encoded.objectValue?.keys.last == "matrix")
    }

    @Test func topLevelSingleValuesAndArrays() throws {
        let encoder = JSONValueEncoder()
        #expect(try encoder.encode(UInt256.powerOfTwo(64)) == "18446744073709551616")
        #expect(try encoder.encode(Optional<Int>.none) == .null)
        #expect(try encoder.encode([true, false]) == [true, false])
        #expect(try encoder.encode(["b": 1, "a": 2] as KeyValuePairsBox) == ["b": 1, "a": 2])
    }

    @Test func nonFiniteNumbersAreRefusedWithTheirPath() throws {
        struct Reading: Encodable { let values: [Double] }
        do {
            _ = try JSONValueEncoder().encode(Reading(values: [1, .infinity]))
            Issue.record("an infinite number was encoded")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["values", "1"])
        }
    }

    @Test func roundTripsThroughTheParser() throws {
        let owner = try #require(Self.owner)
        let encoded = try JSONValueEncoder().encode([Leg(token: owner, amount: 7)])
        #expect(try JSONValue(parsing: encoded.serialized) == encoded)
    }

    @Test func ethereumTypesDecodeFromWhatTheyEncode() throws {
        let owner = try #require(Self.owner)
        let leg = Leg(token: owner, amount: .max)
        let data = try JSONEncoder().encode([leg.amount])
        #expect(try JSONDecoder().decode([UInt256].self, from: data) == [UInt256.max])
        #expect(try JSONDecoder().decode([UInt256].self, from: Data("[\"0x10\", 17]".utf8)) == [16, 17])
        let salt = try Bytes32(hex: "0x" + String(repeating: "01", count: 32))
        #expect(try JSONDecoder().decode([Bytes32].self, from: try JSONEncoder().encode([salt])) == [salt])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Bytes32].self, from: Data("[\"0x01\"]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([UInt256].self, from: Data("[\"-1\"]".utf8)) }
    }
}

/// An object with a chosen member order, encoded through a keyed container with dynamic keys.
struct KeyValuePairsBox: Encodable, ExpressibleByDictionaryLiteral {
    struct DynamicKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    let pairs: [(String, Int)]
    init(dictionaryLiteral elements: (String, Int)...) { pairs = elements }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DynamicKey.self)
        for (key, value) in pairs { try container.encode(value, forKey: DynamicKey(stringValue: key)) }
    }
}
