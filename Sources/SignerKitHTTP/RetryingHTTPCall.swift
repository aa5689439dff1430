import EthereumPrimitives
import Foundation

/// One HTTP call over an ``HTTPTransport``, repeated where repeating is safe: the one retry loop under the
/// JSON-RPC client and the Pay client.
///
/// - A request that never left (``HTTPError/notSent(_:)``) is repeated, idempotent or not.
/// - An idempotent request is also repeated after a lost answer (``HTTPError/outcomeUnknown(_:)``), an attempt
///   timeout that left time on the call, and an answer whose status the policy repeats (429 and 5xx);
///   a non-idempotent one only after a status the policy calls unprocessed.
/// - A non-idempotent request that was sent and got no complete answer is never repeated: it ends the call
///   as ``RetryingHTTPCallError/outcomeUnknown(_:)``, and the caller asks the server what happened.
/// - Before each retry it waits the policy's back-off, or the answer's `Retry-After` capped by the policy,
///   on ``clock``; a wait that would reach the call's deadline is not started.
/// - Any answer it does not repeat (2xx or not) is returned as it came; the caller reads it.
///
/// ```swift
/// let call = RetryingHTTPCall(transport: CurlHTTPTransport.shared, policy: policy)
/// let response = try await call.send(idempotent: true, within: .deadline(deadline)) { attemptDeadline in
///     HTTPRequest(method: "GET", url: url, deadline: attemptDeadline)
/// }
/// ```
public struct RetryingHTTPCall: Sendable {
    /// How long the call and each of its attempts may take.
    public enum TimeLimit: Sendable, Equatable {
        /// One deadline for the whole call: every attempt may run until it, so an attempt that times out
        /// ends the call.
        case deadline(ContinuousClock.Instant)
        /// Each attempt may take the duration (never past the deadline, when there is one); an attempt that
        /// times out is repeated while retries remain and the deadline has not passed.
        case perAttempt(Duration, deadline: ContinuousClock.Instant?)

        /// The deadline of the whole call, if it has one.
        var callDeadline: ContinuousClock.Instant? {
            switch self {
            case .deadline(let deadline): deadline
            case .perAttempt(_, let deadline): deadline
            }
        }

        /// The deadline of an attempt that starts at `now`.
        func attemptDeadline(startingAt now: ContinuousClock.Instant) -> ContinuousClock.Instant {
            switch self {
            case .deadline(let deadline): deadline
            case .perAttempt(let timeout, let deadline?): min(now.advanced(by: timeout), deadline)
            case .perAttempt(let timeout, nil): now.advanced(by: timeout)
            }
        }
    }

    /// Sends each attempt.
    public let transport: any HTTPTransport
    /// How many retries, after which answers, with which waits.
    public let policy: HTTPRetryPolicy
    /// Where every wait and every deadline is read.
    public let clock: any SignerClock

    /// A call sending through `transport` with `policy`, waiting on `clock` (the system clock by default).
    public init(transport: any HTTPTransport, policy: HTTPRetryPolicy, clock: any SignerClock = SystemClock()) {
        self.transport = transport
        self.policy = policy
        self.clock = clock
    }

    /// Sends the request `makeRequest` builds for each attempt (given that attempt's deadline, which the
    /// request must carry) and returns the first answer that is not repeated.
    ///
    /// - Parameters:
    ///   - idempotent: whether the request may be repeated after the server may have acted on it.
    ///   - limit: the call's deadline, or each attempt's timeout and the caller's deadline.
    ///   - isDefinitive: whether an answer is final whatever its status (a JSON-RPC error object in a 5xx);
    ///     such an answer is returned, never repeated.
    ///   - makeRequest: the request of one attempt; called once per attempt, so it may number them.
    /// - Throws: ``RetryingHTTPCallError``; a non-idempotent request sent without an answer is
    ///   ``RetryingHTTPCallError/outcomeUnknown(_:)``.
    public func send(
        idempotent: Bool, within limit: TimeLimit, isDefinitive: (HTTPResponse) -> Bool = { _ in false },
        makeRequest: (_ deadline: ContinuousClock.Instant) -> HTTPRequest
    ) async throws(RetryingHTTPCallError) -> HTTPResponse {
        var retry = 0
        var earlier: Result<HTTPResponse, HTTPError>?
        while true {
            let request = makeRequest(limit.attemptDeadline(startingAt: clock.now))
            let outcome: Result<HTTPResponse, HTTPError>
            do { outcome = .success(try await transport.send(request)) } catch { outcome = .failure(error) }
            let retriesLeft = retry < policy.maxRetries
            var retryAfter: String?
            switch outcome {
            case .success(let response):
                guard retriesLeft, policy.repeats(status: response.status, idempotent: idempotent),
                    !isDefinitive(response)
                else { return response }
                retryAfter = response.header("retry-after")
            case .failure(let error):
                try checkRepeatable(
                    error, idempotent: idempotent, limit: limit, retriesLeft: retriesLeft, earlier: earlier)
            }
            let waited: Bool
            do { waited = try await waitBeforeRetry(retry, retryAfter: retryAfter, deadline: limit.callDeadline) } catch
            {
                throw .cancelled(requestSent: false)
            }
            guard waited else { throw .noTimeForRetry(after: outcome) }
            earlier = outcome
            retry += 1
        }
    }

    /// Sends `request`, repeated per the rules of ``send(idempotent:within:isDefinitive:makeRequest:)``; its
    /// ``HTTPRequest/deadline`` bounds the whole call. With `attemptTimeout`, each attempt gets at most that
    /// (a timed-out attempt may then be repeated); without it, each may run until the deadline.
    public func send(
        _ request: HTTPRequest, idempotent: Bool, attemptTimeout: Duration? = nil
    ) async throws(RetryingHTTPCallError) -> HTTPResponse {
        let limit: TimeLimit =
            attemptTimeout.map { .perAttempt($0, deadline: request.deadline) } ?? .deadline(request.deadline)
        return try await send(idempotent: idempotent, within: limit) { deadline in
            var attempt = request
            attempt.deadline = deadline
            return attempt
        }
    }

    /// Waits before retry number `retry` (0-based) on ``clock``: `retryAfter` capped by the policy when it is
    /// readable, else the policy's back-off.
    ///
    /// - Returns: `false`, without waiting, when the wait would reach `deadline` (no time for another attempt).
    /// - Throws: `CancellationError` when the task is cancelled during the wait.
    public func waitBeforeRetry(
        _ retry: Int, retryAfter: String? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws(CancellationError) -> Bool {
        let wake = clock.now.advanced(by: policy.delay(retry: retry, retryAfter: retryAfter))
        if let deadline, wake >= deadline { return false }
        do { try await clock.sleep(until: wake) } catch { throw CancellationError() }
        return true
    }

    /// Returns when a failed attempt may be repeated; throws what ends the call otherwise.
    private func checkRepeatable(
        _ error: HTTPError, idempotent: Bool, limit: TimeLimit, retriesLeft: Bool,
        earlier: Result<HTTPResponse, HTTPError>?
    ) throws(RetryingHTTPCallError) {
        switch error {
        case .notSent:
            guard retriesLeft else { throw .failed(error, earlier: earlier) }
        case .outcomeUnknown:
            guard idempotent else { throw .outcomeUnknown(error) }
            guard retriesLeft else { throw .failed(error, earlier: earlier) }
        case .timeout(let sent):
            if sent && !idempotent { throw .outcomeUnknown(error) }
            // Only an attempt timeout leaves time on the call; the call's own deadline ends it.
            guard case .perAttempt = limit, retriesLeft else { throw .failed(error, earlier: earlier) }
            if let deadline = limit.callDeadline, clock.now >= deadline { throw .failed(error, earlier: earlier) }
        case .cancelled(let sent):
            throw .cancelled(requestSent: sent)
        case .redirectRefused, .bodyTooLarge:
            throw .failed(error, earlier: earlier)
        }
    }
}
