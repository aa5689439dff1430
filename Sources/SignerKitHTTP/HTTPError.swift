import EthereumPrimitives

/// Why an HTTP exchange produced no usable answer. The cases say whether the request may have been
/// acted upon, which decides whether repeating it is safe.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request never left: the name did not resolve, the connection was refused, TLS failed, or the
    /// URL is not one this transport sends to. Repeating it is safe.
    case notSent(String)
    /// The request was sent (maybe in part) and no complete answer came back: the connection was reset
    /// or closed, or the body was cut short. The server may have acted on it; a non-idempotent request
    /// must not be repeated blindly.
    case outcomeUnknown(String)
    /// The request's deadline passed; `requestSent` says whether it had been sent (then the outcome is unknown).
    case timeout(requestSent: Bool)
    /// The calling task was cancelled; `requestSent` says whether it had been sent.
    case cancelled(requestSent: Bool)
    /// The server answered with a redirect (3xx), which is never followed; the `Location` host, abbreviated
    /// (`nil` when there was none).
    case redirectRefused(status: Int, locationHost: String?)
    /// The response body is larger than the request's cap (bytes).
    case bodyTooLarge(limit: Int)

    /// Whether the server may have received (and acted on) the request.
    public var requestMayHaveBeenProcessed: Bool {
        switch self {
        case .notSent: false
        case .outcomeUnknown, .redirectRefused, .bodyTooLarge: true
        case .timeout(let sent), .cancelled(let sent): sent
        }
    }

    /// A one-line explanation (no header values, no bodies).
    public var description: String {
        switch self {
        case .notSent(let reason): "not sent: \(reason)"
        case .outcomeUnknown(let reason): "sent, but no complete answer: \(reason)"
        case .timeout(let sent): sent ? "no complete answer before the deadline" : "not sent before the deadline"
        case .cancelled(let sent):
            sent ? "cancelled after the request was sent" : "cancelled before the request was sent"
        case .redirectRefused(let status, let host):
            "redirect refused: HTTP \(status) to "
                + (host.map { "host \(EchoedText.abbreviated($0).debugDescription)" } ?? "no Location")
        case .bodyTooLarge(let limit): "the response body is larger than \(limit) bytes"
        }
    }
}
