/// Why a ``RetryingHTTPCall`` ended without an answer to return. Each case says whether the server may
/// have acted on the request, so the caller knows whether it must ask what happened before sending again.
public enum RetryingHTTPCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A non-idempotent request was sent and no complete answer came back (the cause is
    /// ``HTTPError/outcomeUnknown(_:)`` or ``HTTPError/timeout(requestSent:)`` with `requestSent` true). The
    /// server may have acted on it, so it was not repeated: ask the server what happened before sending it again.
    case outcomeUnknown(HTTPError)
    /// The last attempt failed with `cause` and it is not repeated: it cannot be (a refused redirect, a body
    /// too large), the retries are used up, or the time is. `earlier` is what the attempt before it ended with,
    /// `nil` when the last attempt was the first (a retry that times out before it is sent says less than
    /// the failure that made it necessary).
    case failed(HTTPError, earlier: Result<HTTPResponse, HTTPError>?)
    /// The last attempt ended in a way worth repeating (its answer or failure is attached), but waiting before
    /// the next one would reach the caller's deadline, so there was no next one.
    case noTimeForRetry(after: Result<HTTPResponse, HTTPError>)
    /// The calling task was cancelled; `requestSent` says whether the attempt in flight had been sent (false
    /// when the cancellation came during a wait between attempts).
    case cancelled(requestSent: Bool)

    /// A one-line explanation (no header values, no bodies).
    public var description: String {
        switch self {
        case .outcomeUnknown(let cause): "outcome unknown, not repeated: \(cause)"
        case .failed(let cause, _): "\(cause)"
        case .noTimeForRetry(.success(let response)):
            "HTTP \(response.status), and no time left for a retry before the deadline"
        case .noTimeForRetry(.failure(let cause)): "\(cause), and no time left for a retry before the deadline"
        case .cancelled(let sent): HTTPError.cancelled(requestSent: sent).description
        }
    }
}
