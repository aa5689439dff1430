import EthereumPrimitives
import Foundation
import SignerKitHTTP

/// One JSON call to a cloud key service or its token endpoint: sent through the transport, a lost answer,
/// a 5xx or a 429 repeated after the retry policy's back-off (or the service's `Retry-After`, capped), waited
/// on the injected clock while retries remain and the wait ends before the deadline. Every call SignerKit
/// makes is safe to repeat (reading a key, getting a token, signing a digest twice changes nothing).
struct CloudRESTCall: Sendable {
    /// The service, for errors.
    let provider: CloudKMSProvider
    /// Sends each attempt.
    let transport: any HTTPTransport
    /// What every wait and deadline reads.
    let clock: any SignerClock
    /// Retries after throttling, server errors and attempts that got no answer.
    let retryPolicy: HTTPRetryPolicy
    /// The longest one attempt may take.
    let attemptTimeout: Duration

    /// The answer of a request: its status and JSON body (`nil` when the body is not JSON).
    struct Answer: Sendable {
        /// The HTTP response.
        let response: HTTPResponse
        /// The body as JSON, if it is JSON.
        let json: JSONValue?
    }

    /// Sends `method` to `url` with `headers` and `body` until an answer that is not repeated; throttling that
    /// outlasts the retries or the deadline is ``CloudKMSError/throttled(_:key:attempts:)``.
    ///
    /// - Throws: ``CloudKMSError/throttled(_:key:attempts:)``, ``CloudKMSError/transport(_:key:reason:)``.
    func send(
        _ method: String, _ url: URL, headers: [HTTPHeader], body: [UInt8]?, key: String?,
        deadline: ContinuousClock.Instant
    ) async throws(CloudKMSError) -> Answer {
        let http = RetryingHTTPCall(transport: transport, policy: retryPolicy, clock: clock)
        var attempts = 0
        let response: HTTPResponse
        do {
            response = try await http.send(idempotent: true, within: .perAttempt(attemptTimeout, deadline: deadline)) {
                attemptDeadline in
                attempts += 1
                return HTTPRequest(
                    method: method, url: url, headers: headers, body: body, deadline: attemptDeadline,
                    connectTimeout: min(attemptTimeout, .seconds(10)), maxResponseBytes: 1 << 20)
            }
        } catch {
            if case .noTimeForRetry(.success(let last)) = error, last.status == 429 {
                throw .throttled(provider, key: key ?? "-", attempts: attempts)
            }
            throw .transport(provider, key: key, reason: error.description)
        }
        if response.status == 429 { throw .throttled(provider, key: key ?? "-", attempts: attempts) }
        return Answer(response: response, json: try? JSONValue(parsing: response.body))
    }
}
