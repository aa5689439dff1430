import EthereumPrimitives

/// Why a call to an Ethereum node failed.
public enum NodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The node answered with a JSON-RPC error object: its `code` and `message`, for `method`.
    case rpc(code: Int, message: String, method: String)
    /// The node answered with a non-2xx HTTP status and no JSON-RPC error in the body.
    case http(status: Int, method: String)
    /// The request did not reach the node or no answer came back (connection refused, DNS, TLS…).
    case transport(String)
    /// The node answered, but not with what `method` should return; the text says what was wrong.
    case invalidResponse(method: String, reason: String)
    /// No answer within the time allowed (the HTTP timeout, or ``EthereumNode/waitForReceipt(_:timeout:pollInterval:)``'s).
    case timeout(method: String)
    /// The calling task was cancelled while `method` was in flight.
    case cancelled(method: String)
    /// The request for `method` was sent and its answer was lost (connection reset or closed, body cut
    /// short, no answer before the deadline): the node may or may not have acted on it. Never repeat a
    /// non-idempotent call blindly after this; for `eth_sendRawTransaction` the client has already asked
    /// `eth_getTransactionByHash` for the hash it knows, and the node did not know it (`reason` says so).
    case outcomeUnknown(method: String, reason: String)

    /// The most characters of a node's error message quoted in ``description`` (node messages such as
    /// geth's "insufficient funds for gas * price + value: …" run past `EchoedText/limit`).
    public static let messageLimit = 400

    /// A one-line explanation; the node's own text is quoted abbreviated (and with key-length hex runs
    /// redacted), never whole.
    public var description: String {
        switch self {
        case .rpc(let code, let message, let method):
            "\(method): node error \(code): \(EchoedText.abbreviated(message, limit: NodeError.messageLimit))"
        case .http(let status, let method): "\(method): HTTP status \(status)"
        case .transport(let text): "transport error: \(text)"
        case .invalidResponse(let method, let reason): "\(method): invalid response: \(reason)"
        case .timeout(let method): "\(method): timed out"
        case .cancelled(let method): "\(method): cancelled"
        case .outcomeUnknown(let method, let reason): "\(method): outcome unknown (the request was sent): \(reason)"
        }
    }
}
