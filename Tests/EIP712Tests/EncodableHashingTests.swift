import EIP712
import EthereumPrimitives
import Testing

/// `compiled.digest(encoding:)` hashes a Swift value as it encodes; it must read every value exactly as the
/// JSON path reads `JSONValueEncoder`'s form of it.
@Suite struct EncodableHashingTests {
    typealias Order = EncodedMessageTests.Order
    typealias Asset = EncodedMessageTests.Asset

    static func order(basePrice: UInt256 = 500_000_000_000_000_000, kind: UInt8 = 1) throws -> Order {
        Order(
            maker: try Address("0xd761024b4ef3336becd6e802884d0b986c29b35a"), kind: kind,
            assets: [
                Asset(
                    erc: 1, addr: try Address("0x32950db2a7164ae833121501c797d79e7b79d74c"), id: 2_730_069, quantity: 0)
            ],
            expiredAt: 1_721_709_637, paymentToken: try Address("0xc99a6a985ed2cac1ef41640596c5a5f9f4e19ef5"),
            startedAt: 1_705_984_837, basePrice: basePrice, endedAt: 0, endedPrice: 0, expectedState: 0, nonce: 0,
            marketFeePercentage: 425)
    }

    @Test func theRoninOrderHashesLikeItsJSON() throws {
        let typedData = try EncodedMessageTests.roninOrder()
        let compiled = try typedData.compile()
        #expect(try compiled.digest(encoding: Self.order()) == typedData.digest())
        #expect(try compiled.hashes(encoding: Self.order()) == typedData.hashes())
        let other = try Self.order(basePrice: .max)
        #expect(try compiled.digest(encoding: other) != typedData.digest())
        #expect(try compiled.digest(encoding: other) == compiled.digest(message: JSONValueEncoder().encode(other)))
    }

    /// Every vector's message, encoded through a Swift `Encodable` walk of its JSON, hashes to the vector's
    /// digest.
    @Test(arguments: EIP712VectorTests.rows)
    func everyVectorMessageHashesThroughAnEncoder(row: VectorRow) throws {
        let typedData = try TypedData(json: try #require(row["typedData"]))
        let message = try #require(row["typedData"]?["message"])
        #expect(try typedData.compile().digest(encoding: EncodableJSON(message)).hex == row.string("digest"))
    }

    /// Broken messages fail with the error the JSON path gives them (reason and path).
    @Test func brokenMembersFailAsTheJSONPathFails() throws {
        let compiled = try EncodedMessageTests.roninOrder().compile()
        let good = try JSONValueEncoder().encode(Self.order())
        guard case .object(let object) = good else { return #expect(Bool(false)) }
        let replacements: [(String, JSONValue)] = [
            ("maker", "0x12"), ("maker", "0xD761024b4ef3336becd6e802884d0b986c29b35a"), ("maker", 7),
            ("kind", 256), ("kind", -1), ("kind", "x"), ("kind", true), ("kind", .number("1.5")), ("kind", .null),
            ("assets", "[]"), ("assets", [1]), ("assets", [["erc": 1]]), ("basePrice", ["a": 1]),
            ("nonce", "0x1g"), ("expiredAt", [1, 2]),
        ]
        for (key, value) in replacements {
            var members = object.members
            let index = try #require(members.firstIndex { $0.key == key })
            members[index].value = value
            let broken = JSONValue.object(JSONObject(members: members))
            let expected = try #require(Self.error { try compiled.digest(message: broken) })
            let actual = try #require(Self.error { try compiled.digest(encoding: EncodableJSON(broken)) })
            #expect(actual == expected, "\(key) = \(value.serialized)")
        }
        var missing = object.members
        missing.removeAll { $0.key == "nonce" }
        let withoutNonce = JSONValue.object(JSONObject(members: missing))
        #expect(
            Self.error { try compiled.digest(encoding: EncodableJSON(withoutNonce)) }
                == Self.error { try compiled.digest(message: withoutNonce) })
        let extra = JSONValue.object(JSONObject(members: object.members + [JSONObject.Member(key: "tip", value: 1)]))
        #expect(
            Self.error { try compiled.digest(encoding: EncodableJSON(extra)) }
                == EIP712Error(.unexpectedField, at: [.key("message"), .key("tip")]))
    }

    /// Swift integers wider than their member's type, and a `UInt256` past `uintN`, are errors naming the member.
    @Test func outOfRangeSwiftValuesNameTheMember() throws {
        let schema: JSONValue = [
            "EIP712Domain": [["name": "name", "type": "string"]],
            "Small": [
                ["name": "a", "type": "uint8"], ["name": "b", "type": "int8"], ["name": "c", "type": "uint72"],
                ["name": "d", "type": "bytes2"],
            ],
        ]
        let compiled = try TypedData(
            json: ["types": schema, "primaryType": "Small", "domain": ["name": "t"], "message": [:]]
        ).compile()
        struct Small: Encodable {
            var a: Int = 255
            var b: Int64 = -128
            var c: UInt256 = UInt256.powerOfTwo(71)
            var d: String = "0xabcd"
        }
        let fine = try compiled.digest(encoding: Small())
        #expect(try fine == compiled.digest(message: JSONValueEncoder().encode(Small())))
        let cases: [(Small, String)] = [
            (Small(a: 256), "a"), (Small(a: -1), "a"), (Small(b: 128), "b"), (Small(b: -129), "b"),
            (Small(c: UInt256.powerOfTwo(72)), "c"), (Small(d: "0xabcdef"), "d"),
        ]
        for (value, member) in cases {
            let error = try #require(Self.error { try compiled.digest(encoding: value) })
            #expect(error.path == [.key("message"), .key(member)], "\(error)")
            #expect(error == Self.error { try compiled.digest(message: JSONValueEncoder().encode(value)) })
        }
    }

    /// Hand-written conformances: members out of order, a key encoded twice (the last wins, as in
    /// `JSONValueEncoder`), nested containers, a wrapper that encodes through a single-value container.
    @Test func handWrittenConformancesHashLikeTheirJSON() throws {
        let typedData = try EncodedMessageTests.roninOrder()
        let compiled = try typedData.compile()
        let order = try Self.order()
        let shuffled = ShuffledOrder(order: order)
        #expect(try compiled.digest(encoding: shuffled) == typedData.digest())
        #expect(try compiled.digest(message: JSONValueEncoder().encode(shuffled)) == typedData.digest())
        #expect(try compiled.digest(encoding: Wrapper(inner: order)) == typedData.digest())
    }

    @Test func aThrowingConformancePassesItsErrorThrough() throws {
        struct Refusing: Encodable {
            struct Refused: Error {}
            func encode(to encoder: any Encoder) throws { throw Refused() }
        }
        let compiled = try EncodedMessageTests.roninOrder().compile()
        #expect(throws: Refusing.Refused.self) { try compiled.digest(encoding: Refusing()) }
        #expect(throws: EncodingError.self) { try compiled.digest(encoding: NonFinite()) }
    }

    static func error(_ body: () throws -> Bytes32) -> EIP712Error? {
        do {
            _ = try body()
            return nil
        } catch let error as EIP712Error {
            return error
        } catch {
            return nil
        }
    }
}

/// A non-finite number in a `uint` member: Swift's encoding error, as `JSONValueEncoder` throws.
private struct NonFinite: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(Double.infinity, forKey: AnyKey("kind"))
    }
}

/// The Ronin order written by hand: members in reverse, `nonce` written twice (wrong, then right), the
/// assets through nested containers.
private struct ShuffledOrder: Encodable {
    let order: EncodedMessageTests.Order

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(UInt256(99), forKey: AnyKey("nonce"))
        try container.encode(order.marketFeePercentage, forKey: AnyKey("marketFeePercentage"))
        try container.encode(order.nonce, forKey: AnyKey("nonce"))
        try container.encode(order.expectedState, forKey: AnyKey("expectedState"))
        try container.encode(order.endedPrice, forKey: AnyKey("endedPrice"))
        try container.encode(order.endedAt, forKey: AnyKey("endedAt"))
        try container.encode(order.basePrice, forKey: AnyKey("basePrice"))
        try container.encode(order.startedAt, forKey: AnyKey("startedAt"))
        try container.encode(order.paymentToken, forKey: AnyKey("paymentToken"))
        try container.encode(order.expiredAt, forKey: AnyKey("expiredAt"))
        var assets = container.nestedUnkeyedContainer(forKey: AnyKey("assets"))
        for asset in order.assets {
            var fields = assets.nestedContainer(keyedBy: AnyKey.self)
            try fields.encode(asset.quantity, forKey: AnyKey("quantity"))
            try fields.encode(asset.id, forKey: AnyKey("id"))
            try fields.encode(asset.addr, forKey: AnyKey("addr"))
            try fields.encode(asset.erc, forKey: AnyKey("erc"))
        }
        try container.encode(order.kind, forKey: AnyKey("kind"))
        try container.encode(order.maker, forKey: AnyKey("maker"))
    }
}

/// A value that encodes as the value it wraps.
private struct Wrapper<Inner: Encodable>: Encodable {
    let inner: Inner
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(inner)
    }
}

/// Any string as a coding key.
struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A JSON value encoded through Swift's `Encodable` protocols: objects as keyed containers, arrays as unkeyed
/// ones, numbers as the Swift integer or `Double` that holds them (a larger integer as a `UInt256`, whose
/// decimal string the JSON path reads the same), strings, booleans and `null` as themselves.
struct EncodableJSON: Encodable {
    let value: JSONValue
    init(_ value: JSONValue) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .object(let object):
            var container = encoder.container(keyedBy: AnyKey.self)
            for member in object.members {
                try container.encode(EncodableJSON(member.value), forKey: AnyKey(member.key))
            }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(EncodableJSON(element)) }
        default:
            var container = encoder.singleValueContainer()
            switch value {
            case .null: try container.encodeNil()
            case .bool(let flag): try container.encode(flag)
            case .string(let text): try container.encode(text)
            case .number(let literal):
                if let small = Int64(literal) {
                    try container.encode(small)
                } else if let large = UInt64(literal) {
                    try container.encode(large)
                } else if let wide = try? UInt256(text: literal) {
                    try container.encode(wide)
                } else {
                    try container.encode(try #require(Double(literal)))
                }
            default: break
            }
        }
    }
}
