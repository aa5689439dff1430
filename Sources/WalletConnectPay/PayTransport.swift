import EthereumPrimitives
import Foundation
import SignerKitHTTP

/// One call to the Pay API through a ``RetryingHTTPCall`` over the configured ``HTTPTransport``, repeated
/// per the retry policy where repeating is safe. Internal to ``PayClient``.
///
/// - Credentials go only to ``PayClientConfiguration/baseURL``'s origin (the URL is always built from it,
///   and redirects are refused: ``PayError/redirectRefused(endpoint:status:host:)``).
/// - A request that never left, and a 429, are repeated for every endpoint.
/// - A 5xx or a lost answer (reset, closed, truncated, no answer in time after sending) is repeated for
///   every endpoint but `confirm`; for `confirm` it is ``PayError/outcomeUnknown(endpoint:reason:)`` at
///   once, and ``PayClient`` asks the payment's status before anything else.
/// - `until` (a caller's deadline) bounds every attempt in flight and every wait between attempts.
package struct PayTransport: Sendable {
    let configuration: PayClientConfiguration
    /// The retrying call every request goes through; its clock is the client's.
    let http: RetryingHTTPCall

    /// A transport for `configuration`, sending through `transport` and waiting on `clock`.
    init(configuration: PayClientConfiguration, transport: any HTTPTransport, clock: any SignerClock) {
        self.configuration = configuration
        http = RetryingHTTPCall(transport: transport, policy: configuration.retry.http, clock: clock)
    }

    /// Sends the request and returns the parsed 2xx JSON body.
    func send(
        _ method: String, endpoint: PayEndpoint, paymentId: String, suffix: String, query: [(String, String)] = [],
        body: JSONValue? = nil, longPoll: Duration = .zero, until callerDeadline: ContinuousClock.Instant? = nil
    ) async throws(PayError) -> JSONValue {
        let url = try makeURL(paymentId: paymentId, suffix: suffix, query: query)
        var headers = [
            HTTPHeader("Accept", "application/json"), HTTPHeader("WCP-Version", PayClientConfiguration.apiVersion),
            HTTPHeader("Sdk-Name", configuration.sdkName), HTTPHeader("Sdk-Version", configuration.sdkVersion),
            HTTPHeader("Sdk-Platform", configuration.sdkPlatform),
        ]
        for (name, value) in configuration.authentication.headers { headers.append(HTTPHeader(name, value)) }
        if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        let bytes = body.map { Array($0.serialized.utf8) }
        let log = { (kind: PayLogEvent.Kind) in
            configuration.log?(PayLogEvent(method: method, endpoint: endpoint, path: url.path, kind: kind))
        }
        log(.request(bodyBytes: bytes?.count ?? 0))
        let response: HTTPResponse
        do {
            response = try await http.send(
                idempotent: endpoint != .confirm,
                within: .perAttempt(configuration.requestTimeout + longPoll, deadline: callerDeadline)
            ) { deadline in
                HTTPRequest(
                    method: method, url: url, headers: headers, body: bytes, deadline: deadline,
                    connectTimeout: configuration.connectTimeout, maxResponseBytes: configuration.maxResponseBytes)
            }
        } catch {
            let failure = Self.payError(error, endpoint: endpoint, label: "\(method) \(endpoint)")
            log(.failure(failure.description))
            throw failure
        }
        log(.response(status: response.status, bodyBytes: response.body.count))
        if response.isSuccess {
            do { return try JSONValue(parsing: response.body) } catch {
                throw .invalidResponse("\(endpoint): the body is not JSON (\(error))")
            }
        }
        let apiError = Self.apiError(status: response.status, body: response.body, endpoint: endpoint)
        if (500..<600).contains(response.status) && endpoint == .confirm {
            throw .outcomeUnknown(endpoint: endpoint, reason: "HTTP \(response.status) (\(apiError))")
        }
        throw PayError.classify(apiError)
    }

    /// What a call that ended without an answer to read throws; `label` is `<method> <endpoint>`.
    static func payError(_ error: RetryingHTTPCallError, endpoint: PayEndpoint, label: String) -> PayError {
        switch error {
        case .outcomeUnknown(.outcomeUnknown(let reason)):
            return .outcomeUnknown(endpoint: endpoint, reason: reason)
        case .outcomeUnknown:
            return .outcomeUnknown(endpoint: endpoint, reason: "no answer before the deadline")
        case .failed(let cause, _):
            switch cause {
            case .notSent(let reason), .outcomeUnknown(let reason): return .transport("\(label): \(reason)")
            case .timeout: return .timeout("\(label): \(cause)")
            case .cancelled: return .cancelled
            case .redirectRefused(let status, let host):
                return .redirectRefused(endpoint: endpoint, status: status, host: host)
            case .bodyTooLarge: return .invalidResponse("\(endpoint): \(cause)")
            }
        case .noTimeForRetry:
            return .timeout("\(label): no time left for a retry")
        case .cancelled:
            return .cancelled
        }
    }

    /// `<base>/v1/gateway/payment/<id><suffix>?<query>`; the id is validated and sent as one path segment.
    func makeURL(paymentId: String, suffix: String, query: [(String, String)]) throws(PayError) -> URL {
        do { try PaymentLink.validatePaymentId(paymentId) } catch { throw .invalidPaymentLink(error) }
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var text = base + "/v1/gateway/payment/" + PaymentLink.pathSegment(paymentId) + suffix
        if !query.isEmpty {
            text +=
                "?"
                + query.map { PaymentLink.percentEncode($0.0) + "=" + PaymentLink.percentEncode($0.1) }.joined(
                    separator: "&")
        }
        guard let url = URL(string: text) else {
            throw .transport("cannot form a URL from \(EchoedText.abbreviated(text).debugDescription)")
        }
        return url
    }

    /// Reads `{"code","message"}`; a body that is not that becomes the message (shortened).
    package static func apiError(status: Int, body: [UInt8], endpoint: PayEndpoint) -> PayAPIError {
        if let value = try? JSONValue(parsing: body), case .object(let object) = value {
            let code = object["code"]?.stringValue.map { EchoedText.abbreviated($0) }
            let message = String((object["message"]?.stringValue ?? "").prefix(400))
            if code != nil || !message.isEmpty {
                return PayAPIError(status: status, code: code, message: message, endpoint: endpoint)
            }
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return PayAPIError(status: status, code: nil, message: text, endpoint: endpoint)
    }
}
