import EthereumPrimitives

/// One wallet RPC request: `{chainId (CAIP-2), method, params (a JSON array as text)}`.
///
/// Decodes from both shapes seen in the wild — the SDK shape
/// `{"walletRpc":{"chainId":"eip155:8453","method":…,"params":"[…]"}}` and the Pay API wire shape
/// `{"type":"walletRpc","data":{"chain_id":…,"method":…,"params":[…]}}` — and from the flat
/// `{"chainId":…,"method":…,"params":…}`.
public struct WalletRpcAction: Sendable, Hashable, CustomStringConvertible {
    /// The CAIP-2 chain, e.g. `eip155:8453`.
    public let chainId: ChainID
    /// The method name as sent (an unknown name is refused when the action is resolved, naming its index).
    public let method: String
    /// The params array as compact JSON text.
    public let params: String

    /// Builds an action in code. `params` is JSON text of the params array.
    public init(chainId: ChainID, method: String, params: String) {
        self.chainId = chainId
        self.method = method
        self.params = params
    }

    /// Builds an action in code for a known method.
    public init(chainId: ChainID, method: RpcMethod, params: String) {
        self.init(chainId: chainId, method: method.rawValue, params: params)
    }

    /// Builds an action with params given as parsed JSON.
    public init(chainId: ChainID, method: String, params: JSONValue) {
        self.init(chainId: chainId, method: method, params: params.serialized)
    }

    /// Reads one action in any of the three shapes; errors name the field.
    public init(json: JSONValue) throws(ActionFormatError) {
        guard case .object(var object) = json else { throw .init(field: "", problem: "expected an object") }
        if let inner = object["walletRpc"] {
            guard case .object(let o) = inner else { throw .init(field: "walletRpc", problem: "expected an object") }
            object = o
        } else if let type = object["type"] {
            guard type.stringValue == "walletRpc" else {
                throw .init(field: "type", problem: "expected \"walletRpc\", got \(type.serialized)")
            }
            guard case .object(let o)? = object["data"] else {
                throw .init(field: "data", problem: "expected an object")
            }
            object = o
        }
        guard let chainValue = object["chainId"] ?? object["chain_id"] else {
            throw .init(field: "chainId", problem: "missing")
        }
        guard case .string(let chainText) = chainValue else {
            throw .init(field: "chainId", problem: "expected a CAIP-2 string")
        }
        let chain: ChainID
        do { chain = try ChainID(chainText) } catch { throw .init(field: "chainId", problem: "\(error)") }
        guard case .string(let method)? = object["method"] else {
            throw .init(field: "method", problem: object["method"] == nil ? "missing" : "expected a string")
        }
        let paramsText: String
        switch object["params"] {
        case .string(let text)?: paramsText = text
        case .array(let array)?: paramsText = JSONValue.array(array).serialized
        case .object(let bare)?: paramsText = JSONValue.object(bare).serialized
        case nil: throw .init(field: "params", problem: "missing")
        default: throw .init(field: "params", problem: "expected an array or a JSON string holding one")
        }
        self.init(chainId: chain, method: method, params: paramsText)
    }

    /// Reads a JSON array of actions (any mix of shapes); errors name the index and field.
    public static func list(jsonText: String) throws(ActionFormatError) -> [WalletRpcAction] {
        let value: JSONValue
        do { value = try JSONValue(parsing: jsonText) } catch { throw .init(field: "", problem: "\(error)") }
        guard case .array(let elements) = value else {
            throw .init(field: "", problem: "expected a JSON array of actions")
        }
        var actions: [WalletRpcAction] = []
        for (i, element) in elements.enumerated() {
            do { actions.append(try WalletRpcAction(json: element)) } catch { throw error.at(index: i) }
        }
        return actions
    }

    /// The flat shape, `{"chainId":…,"method":…,"params":"…"}` (what ``init(json:)`` reads first; an audit
    /// record's `actions`).
    public var json: JSONValue {
        .object(
            JSONObject([
                "chainId": .string(chainId.description), "method": .string(method), "params": .string(params),
            ]))
    }

    /// The SDK shape, ``json`` inside `walletRpc`.
    public var sdkJSON: JSONValue { .object(JSONObject(["walletRpc": json])) }

    /// `chainId method params`, for logs (params are not secret).
    public var description: String { "\(chainId) \(method) \(params)" }
}

/// Why JSON is not a wallet RPC action.
public struct ActionFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Index in the action list, when reading a list.
    public var index: Int?
    /// The offending field (`chainId`, `method`, `params`, …); empty for the value itself.
    public var field: String
    /// What is wrong.
    public var problem: String

    /// Builds an error.
    public init(index: Int? = nil, field: String, problem: String) {
        self.index = index
        self.field = field
        self.problem = problem
    }

    func at(index: Int) -> ActionFormatError { ActionFormatError(index: index, field: field, problem: problem) }

    /// `action[2].chainId: missing`.
    public var description: String {
        var location = index.map { "action[\($0)]" } ?? ""
        if !field.isEmpty { location += location.isEmpty ? field : ".\(field)" }
        return location.isEmpty ? problem : "\(location): \(problem)"
    }
}
