import EthereumPrimitives

/// The params object of EIP-5792's `wallet_sendCalls` (version `2.0.0`), read strictly: every field checked,
/// a refusal naming the field (`calls[1].value`).
///
/// ```json
/// {"version":"2.0.0","id":"pay-42","from":"0x…","chainId":"0x2105","atomicRequired":true,
///  "calls":[{"to":"0xToken","data":"0x095ea7b3…"},{"to":"0xShop","data":"0x…","value":"0x0"}]}
/// ```
///
/// A capability (top level or in a call) is refused as ``CallBatchError/unsupportedCapability(_:)`` unless
/// it is marked `"optional": true`: SignerKit supports no request capability.
public struct CallBatchRequest: Sendable, Hashable {
    /// The one API version understood: `2.0.0`.
    public static let version = "2.0.0"
    /// The most calls one batch may hold (more is ``CallBatchError/tooLarge(count:limit:)``, EIP-5792's 5740).
    public static let maximumCalls = 16
    /// The longest id, in UTF-8 bytes.
    public static let maximumIDLength = 4096

    /// The caller's batch id, if it gave one.
    public let id: String?
    /// The sending account.
    public let from: Address
    /// The chain (`chainId` as an `eip155` CAIP-2 chain).
    public let chain: ChainID
    /// Whether the calls must run all or none.
    public let atomicRequired: Bool
    /// The calls, in order.
    public let calls: [ERC7821Batch.Call]

    /// A request built from typed values (checked like parsed ones).
    public init(id: String?, from: Address, chain: ChainID, atomicRequired: Bool, calls: [ERC7821Batch.Call])
        throws(CallBatchError)
    {
        if let id { try Self.check(id: id) }
        guard !calls.isEmpty else { throw .invalidParams(field: "calls", reason: "no calls") }
        guard calls.count <= Self.maximumCalls else { throw .tooLarge(count: calls.count, limit: Self.maximumCalls) }
        guard chain.isEIP155, chain.eip155ChainID != nil else { throw .unsupportedChain(chain.description) }
        self.id = id
        self.from = from
        self.chain = chain
        self.atomicRequired = atomicRequired
        self.calls = calls
    }

    /// Reads `wallet_sendCalls`' params object.
    public init(json: JSONValue) throws(CallBatchError) {
        guard case .object(let object) = json else {
            throw .invalidParams(field: "params[0]", reason: "expected an object, got \(json.kindName)")
        }
        let known: Set<String> = ["version", "id", "from", "chainId", "atomicRequired", "calls", "capabilities"]
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw .invalidParams(field: EchoedText.abbreviated(unknown), reason: "unknown member")
        }
        guard case .string(let version)? = object["version"] else {
            throw .invalidParams(field: "version", reason: "missing or not a string")
        }
        guard version == Self.version else {
            throw .invalidParams(
                field: "version", reason: "\(EchoedText.abbreviated(version).debugDescription) is not \(Self.version)")
        }
        let id: String?
        switch object["id"] {
        case nil, .null?: id = nil
        case .string(let text)?: id = text
        case let other?: throw .invalidParams(field: "id", reason: "expected a string, got \(other.kindName)")
        }
        let from = try Self.address(object["from"], field: "from")
        let chain = try Self.chain(object["chainId"])
        guard case .bool(let atomicRequired)? = object["atomicRequired"] else {
            throw .invalidParams(field: "atomicRequired", reason: "missing or not true/false")
        }
        try Self.checkCapabilities(object["capabilities"], field: "capabilities")
        guard case .array(let items)? = object["calls"] else {
            throw .invalidParams(field: "calls", reason: "missing or not an array")
        }
        guard items.count <= Self.maximumCalls else { throw .tooLarge(count: items.count, limit: Self.maximumCalls) }
        var calls: [ERC7821Batch.Call] = []
        for (index, item) in items.enumerated() { calls.append(try Self.call(item, field: "calls[\(index)]")) }
        try self.init(id: id, from: from, chain: chain, atomicRequired: atomicRequired, calls: calls)
    }

    /// Keccak-256 of what the batch asks for (account, chain, `atomicRequired`, each call's recipient, value and
    /// data, length-prefixed): two requests under one id are the same batch exactly when their digests match.
    public var digest: Bytes32 {
        var parts = ["signerkit.calls.v1", from.lowercased, chain.description, atomicRequired ? "1" : "0"]
        for call in calls { parts += [call.to.lowercased, call.value.hexQuantity, Hex.encode(call.data)] }
        return ActionIdentity.digest(of: parts)
    }

    /// A new batch id for a request without one: 32 random bytes as 0x-hex.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The batch's calls as `eth_sendTransaction` actions of their own, from the account, in order: what an
    /// audit record keeps of the batch for a replay or a shadow policy to judge (every rule judges each call as it
    /// judges the calls of a batch transaction, and the batch rules judge them together).
    public var callActions: [WalletRpcAction] {
        calls.map { call in
            WalletRpcAction(
                chainId: chain, method: .sendTransaction, params: JSONValue.array([transactionJSON(call)]).serialized)
        }
    }

    /// The `eth_sendTransaction` request object of one call sent on its own, from the account (or `sender`).
    func transactionJSON(_ call: ERC7821Batch.Call, from sender: Address? = nil) -> JSONValue {
        var object = JSONObject()
        object["from"] = .string((sender ?? from).lowercased)
        object["to"] = .string(call.to.lowercased)
        object["value"] = .string(call.value.hexQuantity)
        object["data"] = .string(Hex.encode(call.data))
        return .object(object)
    }

    private static func check(id: String) throws(CallBatchError) {
        guard !id.isEmpty, id.utf8.count <= maximumIDLength else {
            throw .invalidParams(field: "id", reason: "expected 1 to \(maximumIDLength) bytes, got \(id.utf8.count)")
        }
        guard !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidParams(field: "id", reason: "control characters are not allowed")
        }
    }

    private static func address(_ value: JSONValue?, field: String) throws(CallBatchError) -> Address {
        guard case .string(let text)? = value else {
            throw .invalidParams(field: field, reason: "missing or not a string")
        }
        do { return try Address(text) } catch {
            throw .invalidParams(field: field, reason: "\(EchoedText.abbreviated(text).debugDescription): \(error)")
        }
    }

    private static func chain(_ value: JSONValue?) throws(CallBatchError) -> ChainID {
        guard case .string(let text)? = value else {
            throw .invalidParams(field: "chainId", reason: "missing or not a string")
        }
        guard let id = quantity(text), let chain = try? ChainID(eip155ChainID: id) else {
            throw .invalidParams(
                field: "chainId", reason: "\(EchoedText.abbreviated(text).debugDescription) is not a hex chain id")
        }
        return chain
    }

    private static func call(_ value: JSONValue, field: String) throws(CallBatchError) -> ERC7821Batch.Call {
        guard case .object(let object) = value else {
            throw .invalidParams(field: field, reason: "expected an object, got \(value.kindName)")
        }
        if let unknown = object.keys.first(where: { !["to", "data", "value", "capabilities"].contains($0) }) {
            throw .invalidParams(field: "\(field).\(EchoedText.abbreviated(unknown))", reason: "unknown member")
        }
        guard object["to"] != nil, object["to"] != .null else {
            throw .invalidParams(field: "\(field).to", reason: "missing (a batch cannot create a contract)")
        }
        let to = try address(object["to"], field: "\(field).to")
        var callValue = UInt256.zero
        if let given = object["value"], given != .null {
            guard case .string(let text) = given, let parsed = quantity(text) else {
                throw .invalidParams(field: "\(field).value", reason: "expected a hex quantity")
            }
            callValue = parsed
        }
        var data: [UInt8] = []
        if let given = object["data"], given != .null {
            guard case .string(let text) = given, text.hasPrefix("0x"), let bytes = try? Hex.decode(text) else {
                throw .invalidParams(field: "\(field).data", reason: "expected 0x-hex bytes")
            }
            data = bytes
        }
        try checkCapabilities(object["capabilities"], field: "\(field).capabilities")
        return ERC7821Batch.Call(to: to, value: callValue, data: data)
    }

    /// A `0x` hex quantity, or `nil`.
    private static func quantity(_ text: String) -> UInt256? {
        guard text.hasPrefix("0x"), text.count > 2 else { return nil }
        return try? UInt256(text: text)
    }

    /// Refuses every capability not marked `"optional": true`: SignerKit supports none in a request.
    private static func checkCapabilities(_ value: JSONValue?, field: String) throws(CallBatchError) {
        switch value {
        case nil, .null?: return
        case .object(let capabilities)?:
            for member in capabilities.members {
                guard case .object(let capability) = member.value else {
                    throw .invalidParams(
                        field: "\(field).\(EchoedText.abbreviated(member.key))", reason: "expected an object")
                }
                if capability["optional"] != .bool(true) {
                    throw .unsupportedCapability(EchoedText.abbreviated(member.key))
                }
            }
        case let other?: throw .invalidParams(field: field, reason: "expected an object, got \(other.kindName)")
        }
    }
}
