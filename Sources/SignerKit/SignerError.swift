/// Why a backend could not produce a result.
public enum SignerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The backend does not implement this RPC method.
    case unsupportedMethod(String)
    /// The request is invalid for this backend; the text names the field.
    case invalidRequest(String)
    /// The user (or remote wallet) declined.
    case rejected(String)
    /// The backend failed; the text names the cause (never secrets).
    case backendFailure(String)
    /// The backend returned a result that does not verify (e.g. a signature from another key).
    case verificationFailed(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .unsupportedMethod(let m): "unsupported method \(m)"
        case .invalidRequest(let text): "invalid request: \(text)"
        case .rejected(let text): "rejected: \(text)"
        case .backendFailure(let text): "backend failure: \(text)"
        case .verificationFailed(let text): "verification failed: \(text)"
        }
    }
}
