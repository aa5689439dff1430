import SignerKit

/// Why a hosted-wallet round trip did not produce a verified result.
public enum WaypointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request cannot be sent (the text names the field).
    case invalidRequest(String)
    /// A `personal_sign` message whose bytes are not UTF-8: the hosted wallet signs text only.
    case messageNotText
    /// The callback URL is not a well-formed response.
    case malformedCallback(CallbackParseError)
    /// The callback's state matches no pending request.
    case unknownState
    /// The callback's state was already used: a replay.
    case replayedState
    /// The request the callback answers has expired (or was abandoned).
    case expiredState
    /// The callback answers another kind of request than the one pending under its state.
    case methodMismatch(expected: WaypointMethod, actual: WaypointMethod)
    /// The callback arrived at another address than the request's redirect.
    case redirectMismatch(expected: String, actual: String)
    /// The wallet answered `type=fail`.
    case walletFailure(WaypointFailure)
    /// The wallet's answer does not verify (a signature from another key, a malformed hash, …).
    case verificationFailed(String)
    /// The ID token did not verify (``IDTokenError/check`` names the failed check).
    case idToken(IDTokenError)
    /// The token endpoint did not exchange the authorization code (the text says why).
    case tokenExchange(String)
    /// No callback arrived in time.
    case timedOut
    /// The waiting task was cancelled, or the user closed the browser sheet.
    case cancelled
    /// The transport failed (socket, browser launch, …).
    case transport(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidRequest(let text): "invalid request: \(text)"
        case .messageNotText:
            "the hosted wallet signs text only, and this personal_sign message is not UTF-8 text"
        case .malformedCallback(let error): "\(error)"
        case .unknownState: "callback state matches no pending request"
        case .replayedState: "callback state was already used (replayed callback)"
        case .expiredState: "callback answers a request that has expired"
        case .methodMismatch(let expected, let actual):
            "callback method \(actual) does not answer a \(expected) request"
        case .redirectMismatch(let expected, let actual): "callback arrived at \(actual), expected \(expected)"
        case .walletFailure(let failure): "hosted wallet refused: \(failure)"
        case .verificationFailed(let text): "verification failed: \(text)"
        case .idToken(let error): "\(error)"
        case .tokenExchange(let text): "authorization code exchange failed: \(text)"
        case .timedOut: "no callback arrived before the timeout"
        case .cancelled: "cancelled"
        case .transport(let text): "transport: \(text)"
        }
    }

    /// The `SignerError` a dispatcher reports: a user cancel is `rejected`, a result that does not
    /// verify is `verificationFailed`, a refused request is `invalidRequest`, the rest `backendFailure`.
    public var signerError: SignerError {
        switch self {
        case .walletFailure(let failure) where failure.code == .userCancel: .rejected("hosted wallet: \(failure)")
        case .walletFailure(let failure): .backendFailure("hosted wallet: \(failure)")
        case .verificationFailed(let text): .verificationFailed("hosted wallet: \(text)")
        case .idToken(let error): .verificationFailed("hosted wallet: \(error)")
        case .invalidRequest, .messageNotText: .invalidRequest(description)
        default: .backendFailure("hosted wallet: \(description)")
        }
    }
}
