import EthereumPrimitives

/// Why a remote signer could not be used or gave no usable answer.
///
/// No case carries, and no description shows, the bearer token; text from the remote is quoted abbreviated.
/// A `SignerError` from ``RemoteSignerBackend`` carries one of these as its `SignerError/underlying(_:error:)`
/// error. An answer that parses but does not verify (a signature by another key, a transaction that differs
/// from the request) is not one of these: the dispatcher refuses it with its own verification error.
public enum RemoteSignerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The remote's URL cannot be used: not `https` (plain `http` only to a loopback host), no host, or carrying
    /// credentials, a query or a fragment.
    case invalidURL(String, reason: String)
    /// The remote could not be reached, or the exchange ended without a complete answer: the transport's reason.
    case unreachable(url: String, reason: String)
    /// No answer before the caller's deadline.
    case timedOut(url: String, call: String)
    /// The remote refused the bearer token (HTTP 401 or 403).
    case unauthorized(url: String, status: Int)
    /// Any other HTTP status without a JSON-RPC answer.
    case httpStatus(url: String, call: String, status: Int)
    /// A JSON-RPC error object: its code and message (quoted, abbreviated).
    case rpc(call: String, code: Int, message: String)
    /// The answer is not what the remote's API promises: the field and why.
    case malformedAnswer(call: String, field: String, reason: String)
    /// The remote does not hold this account (it is not among the accounts it lists).
    case accountNotHeld(Address, url: String)
    /// The remote lists no account at all.
    case noAccounts(url: String)
    /// The request was sent and its answer lost: it is not repeated (the remote may have signed).
    case outcomeUnknown(call: String, reason: String)

    /// A one-line explanation (never the token).
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "remote signer URL \(Self.quoted(url)): \(reason)"
        case .unreachable(let url, let reason): "remote signer \(url) unreachable: \(reason)"
        case .timedOut(let url, let call): "remote signer \(url): \(call) got no answer before the deadline"
        case .unauthorized(let url, let status):
            "remote signer \(url) refused the bearer token (HTTP \(status)): check the token"
        case .httpStatus(let url, let call, let status): "remote signer \(url): \(call) answered HTTP \(status)"
        case .rpc(let call, let code, let message): "remote signer: \(call) failed with error \(code) \(message)"
        case .malformedAnswer(let call, let field, let reason):
            "remote signer: malformed answer to \(call): \(field): \(reason)"
        case .accountNotHeld(let account, let url):
            "remote signer \(url) does not hold account \(account.checksummed)"
        case .noAccounts(let url): "remote signer \(url) lists no account"
        case .outcomeUnknown(let call, let reason):
            "remote signer: \(call) was sent and its answer lost (not repeated): \(reason)"
        }
    }

    /// `text` abbreviated and quoted, as remote-supplied text is shown.
    static func quoted(_ text: String) -> String { EchoedText.abbreviated(text).debugDescription }
}
