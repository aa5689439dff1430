import EIP712
import EthereumPrimitives
import SignerKitTestSupport

/// The Ronin Order as an application writes it without the code generator (the README's Encodable path).
typealias EncodableRoninOrder = RoninOrderValue

/// The fixture's Order message read into both Swift forms: the generated struct (RoninOrder.eip712.json, by the
/// EIP712CodegenPlugin) and the hand-written `Encodable` one.
struct RoninOrderStructs {
    let generated: GeneratedRonin.Order
    let encodable: EncodableRoninOrder

    /// Reads `message` (the fixture's, all members strings); nil when a member is missing or malformed.
    init?(message: JSONNode) {
        func text(_ node: JSONNode?, _ key: String) -> String? { node?[key]?.stringValue }
        func address(_ node: JSONNode?, _ key: String) -> Address? { text(node, key).flatMap { try? Address($0) } }
        func number(_ node: JSONNode?, _ key: String) -> UInt256? { text(node, key).flatMap { try? UInt256(text: $0) } }
        func small(_ node: JSONNode?, _ key: String) -> UInt8? { text(node, key).flatMap { UInt8($0) } }
        var generatedAssets: [GeneratedRonin.Asset] = []
        var encodableAssets: [EncodableRoninOrder.Asset] = []
        for asset in message["assets"]?.elements.map({ $0 }) ?? [] {
            guard let erc = small(asset, "erc"), let addr = address(asset, "addr"), let id = number(asset, "id"),
                let quantity = number(asset, "quantity")
            else { return nil }
            generatedAssets.append(GeneratedRonin.Asset(erc: erc, addr: addr, id: id, quantity: quantity))
            encodableAssets.append(EncodableRoninOrder.Asset(erc: erc, addr: addr, id: id, quantity: quantity))
        }
        guard let maker = address(message, "maker"), let kind = small(message, "kind"),
            let expiredAt = number(message, "expiredAt"), let paymentToken = address(message, "paymentToken"),
            let startedAt = number(message, "startedAt"), let basePrice = number(message, "basePrice"),
            let endedAt = number(message, "endedAt"), let endedPrice = number(message, "endedPrice"),
            let expectedState = number(message, "expectedState"), let nonce = number(message, "nonce"),
            let marketFeePercentage = number(message, "marketFeePercentage")
        else { return nil }
        generated = GeneratedRonin.Order(
            maker: maker, kind: kind, assets: generatedAssets, expiredAt: expiredAt, paymentToken: paymentToken,
            startedAt: startedAt, basePrice: basePrice, endedAt: endedAt, endedPrice: endedPrice,
            expectedState: expectedState, nonce: nonce, marketFeePercentage: marketFeePercentage)
        encodable = EncodableRoninOrder(
            maker: maker, kind: kind, assets: encodableAssets, expiredAt: expiredAt, paymentToken: paymentToken,
            startedAt: startedAt, basePrice: basePrice, endedAt: endedAt, endedPrice: endedPrice,
            expectedState: expectedState, nonce: nonce, marketFeePercentage: marketFeePercentage)
    }
}
