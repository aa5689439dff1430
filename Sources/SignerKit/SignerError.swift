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
    /// The backend failed with an error of its own (a KMS's "throttled" or "denied", a token's return
    /// code), kept so a caller can tell causes apart: `if case .underlying(_, let error) = failure,
    /// let kms = error as? MyKMSError { … }`. The text names the cause (never secrets).
    case underlying(String, error: any Error & Sendable)
    /// The backend returned a result that does not verify (e.g. a signature from another key).
    case verificationFailed(String)
    /// A policy refused what the backend was about to sign (e.g. a fee cap on node-filled fees).
    case policyViolation(policy: String, reason: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .unsupportedMethod(let m): "unsupported method \(m)"
        case .invalidRequest(let text): "invalid request: \(text)"
        case .rejected(let text): "rejected: \(text)"
        case .backendFailure(let text): "backend failure: \(text)"
        case .underlying(let text, let error): "backend failure: \(text): \(error)"
        case .verificationFailed(let text): "verification failed: \(text)"
        case .policyViolation(let policy, let reason): "refused by policy \(policy): \(reason)"
        }
    }

    /// Equal cases with equal texts; two ``underlying(_:error:)`` values are equal when their texts, the
    /// errors' types and the errors' descriptions are.
    public static func == (lhs: SignerError, rhs: SignerError) -> Bool {
        switch (lhs, rhs) {
        case (.unsupportedMethod(let a), .unsupportedMethod(let b)),
            (.invalidRequest(let a), .invalidRequest(let b)),
            (.rejected(let a), .rejected(let b)),
            (.backendFailure(let a), .backendFailure(let b)),
            (.verificationFailed(let a), .verificationFailed(let b)):
            return a == b
        case (.underlying(let a, let errorA), .underlying(let b, let errorB)):
            return a == b && type(of: errorA) == type(of: errorB) && "\(errorA)" == "\(errorB)"
        case (.policyViolation(let policyA, let reasonA), .policyViolation(let policyB, let reasonB)):
            return policyA == policyB && reasonA == reasonB
        default:
            return false
        }
    }
}
