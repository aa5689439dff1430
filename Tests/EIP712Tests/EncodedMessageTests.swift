import EIP712
import EthereumPrimitives
import SignerKitTestSupport
import Testing

/// Typed-data messages built from Swift values (literals, `Encodable` structs) hash like the JSON text.
@Suite struct EncodedMessageTests {
    typealias Asset = RoninOrderValue.Asset
    typealias Order = RoninOrderValue

    static func roninOrder() throws -> TypedData { try TypedData(jsonText: try Fixtures.text("ronin_order.json")) }

    @Test func messageFromAnEncodableStructHashesLikeTheJSON() throws {
        let typedData = try Self.roninOrder()
        let order = Order(
            maker: try Address("0xd761024b4ef3336becd6e802884d0b986c29b35a"), kind: 1,
            assets: [
                Asset(
                    erc: 1, addr: try Address("0x32950db2a7164ae833121501c797d79e7b79d74c"), id: 2_730_069, quantity: 0)
            ],
            expiredAt: 1_721_709_637, paymentToken: try Address("0xc99a6a985ed2cac1ef41640596c5a5f9f4e19ef5"),
            startedAt: 1_705_984_837, basePrice: 500_000_000_000_000_000, endedAt: 0, endedPrice: 0, expectedState: 0,
            nonce: 0, marketFeePercentage: 425)
        let message = try JSONValueEncoder().encode(order)
        let compiled = try typedData.compile()
        #expect(try compiled.digest(message: message) == typedData.digest())
        #expect(try compiled.hashes(message: message) == typedData.hashes())

        // Another order of the same schema: a different digest, and the struct hash the parsed form gives.
        let other = Order(
            maker: order.maker, kind: order.kind, assets: order.assets, expiredAt: order.expiredAt,
            paymentToken: order.paymentToken, startedAt: order.startedAt, basePrice: UInt256.max,
            endedAt: order.endedAt, endedPrice: order.endedPrice, expectedState: order.expectedState, nonce: 1,
            marketFeePercentage: order.marketFeePercentage)
        let otherMessage = try JSONValueEncoder().encode(other)
        #expect(try compiled.digest(message: otherMessage) != typedData.digest())
        let reparsed = try JSONValue(parsing: otherMessage.serialized)
        #expect(try compiled.digest(message: otherMessage) == compiled.digest(message: reparsed))
    }

    @Test func messageFromALiteralHashesLikeTheJSON() throws {
        let typedData = try Self.roninOrder()
        let message: JSONValue = [
            "maker": "0xd761024b4ef3336becd6e802884d0b986c29b35a",
            "kind": 1,
            "assets": [
                ["erc": 1, "addr": "0x32950db2a7164ae833121501c797d79e7b79d74c", "id": 2_730_069, "quantity": 0]
            ],
            "expiredAt": 1_721_709_637,
            "paymentToken": "0xc99a6a985ed2cac1ef41640596c5a5f9f4e19ef5",
            "startedAt": "1705984837",
            "basePrice": 500_000_000_000_000_000,
            "endedAt": 0,
            "endedPrice": 0,
            "expectedState": 0,
            "nonce": 0,
            "marketFeePercentage": 425,
        ]
        #expect(try typedData.compile().digest(message: message) == typedData.digest())
    }

    @Test func anInvalidEncodedMessageNamesTheField() throws {
        struct Wrong: Encodable { let maker: String }
        let compiled = try Self.roninOrder().compile()
        let message = try JSONValueEncoder().encode(Wrong(maker: "0x12"))
        do {
            _ = try compiled.digest(message: message)
            Issue.record("a message with a bad address hashed")
        } catch {
            #expect(error.description.hasPrefix("message.maker"), "\(error.description)")
        }
    }
}
