import EthereumPrimitives
import Foundation
import SignerKitCurl

/// AWS KMS's JSON API (`POST /`, `X-Amz-Target: TrentService.<Operation>`, SigV4-signed by the transport) on
/// an `HTTPTransport`: the calls SignerKit makes, their errors as ``AWSKMSError``s, and throttling retried
/// with back-off within the call's deadline.
///
/// A lost answer is repeated (every call SignerKit makes is read-only or, like `Sign`, safe to repeat: signing
/// a digest twice changes nothing); `ThrottlingException` is repeated after the retry policy's back-off,
/// waited on ``clock``, while retries remain and the wait ends before the deadline; every other KMS error is
/// returned at once, never repeated.
public struct AWSKMSClient: Sendable {
    /// The region and endpoint.
    public let endpoint: AWSKMSEndpoint
    /// The credentials every request is signed with.
    public let credentials: AWSCredentials
    /// Sends each attempt (libcurl by default: it computes the SigV4 signature).
    public let transport: any HTTPTransport
    /// What every wait and deadline reads.
    public let clock: any SignerClock
    /// Retries after throttling (and after an attempt that got no answer), with their back-off.
    public let retryPolicy: HTTPRetryPolicy
    /// The longest a call may take, back-off included, when the caller gives no deadline.
    public let callTimeout: Duration
    /// The longest one attempt may take.
    public let attemptTimeout: Duration

    /// The default retries: 6, from 50 ms doubling to at most 2 s, with half of each wait taken at random.
    public static let defaultRetryPolicy = HTTPRetryPolicy(
        maxRetries: 6, baseDelay: .milliseconds(50), maxDelay: .seconds(2), jitter: 0.5)

    /// A client of KMS at `endpoint` signing with `credentials`.
    public init(
        endpoint: AWSKMSEndpoint, credentials: AWSCredentials, transport: any HTTPTransport = CurlHTTPTransport.shared,
        clock: any SignerClock = SystemClock(), retryPolicy: HTTPRetryPolicy = AWSKMSClient.defaultRetryPolicy,
        callTimeout: Duration = .seconds(30), attemptTimeout: Duration = .seconds(10)
    ) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.transport = transport
        self.clock = clock
        self.retryPolicy = retryPolicy
        self.callTimeout = callTimeout
        self.attemptTimeout = attemptTimeout
    }

    /// Calls `operation` (`Sign`, `GetPublicKey`, `CreateKey`, …) with the JSON `request` and returns KMS's
    /// JSON answer. `keyID` names the key in errors.
    ///
    /// - Parameters:
    ///   - operation: the KMS operation, without `TrentService.`.
    ///   - request: the operation's JSON request.
    ///   - keyID: the key the errors name (`nil` for calls about no key, such as `ListKeys`).
    ///   - deadline: when the whole call, back-off included, must be over (``callTimeout`` from now by default).
    /// - Throws: ``AWSKMSError``: the KMS exception as its case, ``AWSKMSError/throttled(keyID:attempts:)``
    ///   when throttling outlasted the retries or the deadline, ``AWSKMSError/transport(keyID:reason:)``.
    public func call(
        _ operation: String, _ request: JSONValue, keyID: String? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws(AWSKMSError) -> JSONValue {
        let deadline = deadline ?? clock.now.advanced(by: callTimeout)
        let http = RetryingHTTPCall(transport: transport, policy: retryPolicy, clock: clock)
        let body = Array(request.serialized.utf8)
        var throttledRetries = 0
        var attempts = 0
        while true {
            let response: HTTPResponse
            do {
                response = try await http.send(
                    idempotent: true, within: .perAttempt(attemptTimeout, deadline: deadline)
                ) { attemptDeadline in
                    attempts += 1
                    return httpRequest(operation, body: body, deadline: attemptDeadline)
                }
            } catch {
                throw .transport(keyID: keyID, reason: error.description)
            }
            if response.isSuccess { return try Self.json(response.body, keyID: keyID) }
            let failure = AWSKMSErrorAnswer(response, keyID: keyID, operation: operation)
            guard failure.isThrottling else { throw failure.error }
            guard throttledRetries < retryPolicy.maxRetries else {
                throw .throttled(keyID: keyID ?? "-", attempts: attempts)
            }
            let waited: Bool
            do { waited = try await http.waitBeforeRetry(throttledRetries, deadline: deadline) } catch {
                throw .transport(keyID: keyID, reason: "cancelled while backing off after throttling")
            }
            guard waited else { throw .throttled(keyID: keyID ?? "-", attempts: attempts) }
            throttledRetries += 1
        }
    }

    /// One attempt's request: `POST /` with the JSON body, the target header, the session token (signed by the
    /// transport like every header) and SigV4 signing.
    private func httpRequest(_ operation: String, body: [UInt8], deadline: ContinuousClock.Instant) -> HTTPRequest {
        var headers = [
            HTTPHeader("Content-Type", "application/x-amz-json-1.1"),
            HTTPHeader("X-Amz-Target", "TrentService.\(operation)"),
        ]
        if let token = credentials.sessionToken { headers.append(HTTPHeader("X-Amz-Security-Token", token)) }
        let url = endpoint.url.path.isEmpty ? endpoint.url.appendingPathComponent("") : endpoint.url
        var request = HTTPRequest(
            method: "POST", url: url, headers: headers, body: body, deadline: deadline,
            connectTimeout: min(attemptTimeout, .seconds(10)), maxResponseBytes: 1 << 20)
        request.awsSignature = credentials.signature(region: endpoint.region, service: "kms")
        return request
    }

    /// A JSON answer's value.
    static func json(_ body: [UInt8], keyID: String?) throws(AWSKMSError) -> JSONValue {
        do { return try JSONValue(parsing: body) } catch {
            throw .malformedResponse(keyID: keyID, field: "body", reason: "not JSON (\(error))")
        }
    }
}
