import EthereumPrimitives

/// One JSON-RPC 2.0 call of a request body: its id (absent for a notification), method and params.
struct ServiceCall: Sendable {
    /// The id to echo (`nil` for a notification, which gets no answer).
    let id: JSONValue?
    /// The method name.
    let method: String
    /// The params (an absent `params` is an empty array; an object is passed as one element).
    let params: [JSONValue]
    /// Whether `params` was a by-name object.
    let paramsObject: JSONObject?

    /// Reads one request object.
    static func read(_ value: JSONValue) -> Result<ServiceCall, JSONRPCError> {
        guard case .object(let object) = value else { return .failure(.invalidRequest("expected an object")) }
        guard object["jsonrpc"] == .string("2.0") else { return .failure(.invalidRequest("jsonrpc must be \"2.0\"")) }
        let id = object["id"]
        switch id {
        case nil, .string?, .number?, .null?: break
        default: return .failure(.invalidRequest("id must be a string, a number or null"))
        }
        guard case .string(let method)? = object["method"] else {
            return .failure(.invalidRequest("method must be a string"))
        }
        switch object["params"] {
        case nil: return .success(ServiceCall(id: id, method: method, params: [], paramsObject: nil))
        case .array(let array)?: return .success(ServiceCall(id: id, method: method, params: array, paramsObject: nil))
        case .object(let named)?:
            return .success(ServiceCall(id: id, method: method, params: [.object(named)], paramsObject: named))
        default: return .failure(.invalidRequest("params must be an array or an object"))
        }
    }

    /// The answer object for `result`.
    static func answer(id: JSONValue?, result: Result<JSONValue, JSONRPCError>) -> JSONValue {
        var object = JSONObject(["jsonrpc": .string("2.0")])
        object["id"] = id ?? .null
        switch result {
        case .success(let value): object["result"] = value
        case .failure(let error): object["error"] = error.json
        }
        return .object(object)
    }
}
