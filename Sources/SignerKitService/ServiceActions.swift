import EthereumPrimitives
import SignerKit

/// The params of `signerkit_signActions` and `signerkit_preview`: `[[action, …]]`, `[action, …]` or
/// `{"actions": [action, …], "idempotencyKey"?: K}` (by name, or as the one positional param), actions in
/// either wallet RPC shape.
enum ServiceActions {
    static func read(_ call: ServiceCall) -> Result<([WalletRpcAction], String?), JSONRPCError> {
        let list: [JSONValue]
        var key: String?
        if let named = call.paramsObject ?? positionalObject(call) {
            guard case .array(let array)? = named["actions"] else {
                return .failure(.invalidParams("expected {\"actions\": [...]}"))
            }
            list = array
            if let value = named["idempotencyKey"] {
                guard case .string(let text) = value else {
                    return .failure(.invalidParams("idempotencyKey: not a string"))
                }
                key = text
            }
        } else if call.params.count == 1, case .array(let array) = call.params[0] {
            list = array
        } else {
            list = call.params
        }
        do {
            return .success((try WalletRpcAction.list(jsonText: JSONValue.array(list).serialized), key))
        } catch {
            return .failure(.invalidParams(error.description))
        }
    }

    /// `[{"actions": …}]`: the named form as the only positional param (an action never has `actions`).
    private static func positionalObject(_ call: ServiceCall) -> JSONObject? {
        guard call.params.count == 1, case .object(let object) = call.params[0], object["actions"] != nil else {
            return nil
        }
        return object
    }
}
