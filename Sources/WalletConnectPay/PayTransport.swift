import EthereumPrimitives
import Foundation
import SignerKitHTTP

/// One call to the Pay API over the configured ``HTTPTransport``, repeated per the retry policy where
/// repeating is safe. Internal to ``PayClient``.
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
    let transport: any HTTPTransport

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
        let label = "\(method) \(endpoint)"
        let clock = ContinuousClock()

        var retry = 0
        while true {
            var deadline = clock.now.advanced(by: configuration.requestTimeout + longPoll)
            if let callerDeadline { deadline = min(deadline, callerDeadline) }
            let request = HTTPRequest(
                method: method, url: url, headers: headers, body: bytes, deadline: deadline,
                connectTimeout: configuration.connectTimeout, maxResponseBytes: configuration.maxResponseBytes)
            let last = retry >= configuration.retry.maxRetries
            var wait = configuration.retry.backoff(retry: retry)
            let outcome: Result<HTTPResponse, HTTPError>
            do { outcome = .success(try await transport.send(request)) } catch { outcome = .failure(error) }
            switch outcome {
            case .success(let response):
                if response.isSuccess {
                    do { return try JSONValue(parsing: response.body) } catch {
                        throw .invalidResponse("\(endpoint): the body is not JSON (\(error))")
                    }
                }
                let apiError = Self.apiError(status: response.status, body: response.body, endpoint: endpoint)
                let serverError = (500..<600).contains(response.status)
                if serverError && endpoint == .confirm {
                    throw .outcomeUnknown(endpoint: endpoint, reason: "HTTP \(response.status) (\(apiError))")
                }
                guard response.status == 429 || serverError, !last else { throw PayError.classify(apiError) }
                if let text = response.header("retry-after") {
                    wait = configuration.retry.delay(retry: retry, retryAfter: text)
                }
            case .failure(let error):
                switch error {
                case .notSent(let reason):
                    if last { throw .transport("\(label): \(reason)") }
                case .outcomeUnknown(let reason):
                    if endpoint == .confirm { throw .outcomeUnknown(endpoint: endpoint, reason: reason) }
                    if last { throw .transport("\(label): \(reason)") }
                case .timeout(let sent):
                    if sent && endpoint == .confirm {
                        throw .outcomeUnknown(endpoint: endpoint, reason: "no answer before the deadline")
                    }
                    if let callerDeadline, clock.now >= callerDeadline { throw .timeout("\(label): \(error)") }
                    if last { throw .timeout("\(label): \(error)") }
                case .cancelled:
                    throw .cancelled
                case .redirectRefused(let status, let host):
                    throw .redirectRefused(endpoint: endpoint, status: status, host: host)
                case .bodyTooLarge:
                    throw .invalidResponse("\(endpoint): \(error)")
                }
            }
            let wake = clock.now.advanced(by: wait)
            if let callerDeadline, wake >= callerDeadline { throw .timeout("\(label): no time left for a retry") }
            do { try await Task.sleep(until: wake, clock: clock) } catch { throw .cancelled }
            retry += 1
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
