import EthereumPrimitives
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange with the Pay API, repeated per the retry policy. Internal to ``PayClient``.
struct PayTransport: Sendable {
    /// What one attempt produced.
    enum Attempt: Sendable {
        /// An HTTP answer.
        case response(status: Int, headers: [String: String], body: [UInt8])
        /// No answer: connection refused, reset, DNS, TLS…
        case transport(String)
        /// No (complete) answer in time.
        case timeout(String)
        /// The calling task was cancelled.
        case cancelled
    }

    let configuration: PayClientConfiguration
    let session: URLSession

    /// Sends the request and returns the parsed 2xx JSON body, retrying 429, 5xx and transport errors.
    func send(
        _ method: String, endpoint: PayEndpoint, paymentId: String, suffix: String, query: [(String, String)] = [],
        body: JSONValue? = nil, longPoll: Duration = .zero
    ) async throws(PayError) -> JSONValue {
        let url = try makeURL(paymentId: paymentId, suffix: suffix, query: query)
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(PayClientConfiguration.apiVersion, forHTTPHeaderField: "WCP-Version")
        request.setValue(configuration.sdkName, forHTTPHeaderField: "Sdk-Name")
        request.setValue(configuration.sdkVersion, forHTTPHeaderField: "Sdk-Version")
        request.setValue(configuration.sdkPlatform, forHTTPHeaderField: "Sdk-Platform")
        for (name, value) in configuration.authentication.headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.serialized.utf8)
        }
        request.timeoutInterval = Self.idleTimeout(configuration.connectTimeout + longPoll)
        let deadline = configuration.requestTimeout + longPoll
        let label = "\(method) \(endpoint)"

        var retry = 0
        while true {
            let attempt = await perform(request, deadline: deadline, label: label)
            var wait: Duration?
            switch attempt {
            case .cancelled:
                throw .cancelled
            case .response(let status, let headers, let bytes):
                if (200..<300).contains(status) {
                    do { return try JSONValue(parsing: bytes) } catch {
                        throw .invalidResponse("\(endpoint): the body is not JSON (\(error))")
                    }
                }
                let retryable = status == 429 || (500..<600).contains(status)
                if status == 429 { wait = configuration.retry.delay(retry: retry, retryAfter: headers["retry-after"]) }
                if !retryable || retry >= configuration.retry.maxRetries {
                    throw PayError.classify(Self.apiError(status: status, body: bytes, endpoint: endpoint))
                }
            case .transport(let text):
                if retry >= configuration.retry.maxRetries { throw .transport("\(label): \(text)") }
            case .timeout(let text):
                if retry >= configuration.retry.maxRetries { throw .timeout("\(label): \(text)") }
            }
            do { try await Task.sleep(for: wait ?? configuration.retry.backoff(retry: retry)) } catch {
                throw .cancelled
            }
            retry += 1
        }
    }

    /// `<base>/v1/gateway/payment/<id><suffix>?<query>`; the id is one path segment.
    func makeURL(paymentId: String, suffix: String, query: [(String, String)]) throws(PayError) -> URL {
        guard !paymentId.isEmpty else { throw .invalidPaymentLink(.empty) }
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var text = base + "/v1/gateway/payment/" + PaymentLink.pathSegment(paymentId) + suffix
        if !query.isEmpty {
            text +=
                "?"
                + query.map { PaymentLink.percentEncode($0.0) + "=" + PaymentLink.percentEncode($0.1) }.joined(
                    separator: "&")
        }
        guard let url = URL(string: text) else { throw .transport("cannot form a URL from \(text.debugDescription)") }
        return url
    }

    /// Reads `{"code","message"}`; a body that is not that becomes the message (shortened).
    static func apiError(status: Int, body: [UInt8], endpoint: PayEndpoint) -> PayAPIError {
        if let value = try? JSONValue(parsing: body), case .object(let object) = value {
            let code = object["code"]?.stringValue
            let message = object["message"]?.stringValue ?? ""
            if code != nil || !message.isEmpty {
                return PayAPIError(status: status, code: code, message: message, endpoint: endpoint)
            }
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return PayAPIError(status: status, code: nil, message: text, endpoint: endpoint)
    }

    /// One attempt with an overall deadline; task cancellation cancels the request.
    private func perform(_ request: URLRequest, deadline: Duration, label: String) async -> Attempt {
        let state = AttemptState()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Attempt, Never>) in
                let task = session.dataTask(with: request) { data, response, error in
                    state.finish(Self.attempt(data: data, response: response, error: error), continuation: continuation)
                }
                state.start(task, continuation: continuation, deadline: deadline, label: label)
            }
        } onCancel: {
            state.cancel()
        }
    }

    private static func attempt(data: Data?, response: URLResponse?, error: (any Error)?) -> Attempt {
        if let error {
            if let urlError = error as? URLError {
                switch urlError.code {
                case .timedOut: return .timeout("no answer in time")
                case .cancelled: return .cancelled
                default: return .transport("\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))")
                }
            }
            return .transport("\(error)")
        }
        guard let http = response as? HTTPURLResponse else { return .transport("not an HTTP response") }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let name = key as? String, let text = value as? String { headers[name.lowercased()] = text }
        }
        return .response(status: http.statusCode, headers: headers, body: [UInt8](data ?? Data()))
    }

    /// The URLSession idle timeout (connect and first byte) for `duration`, rounded up to whole seconds:
    /// swift-corelibs-foundation truncates it to whole seconds, so 1.8 s would act as 1 s and 0.3 s as
    /// an immediate timeout. The exact limit is the attempt's own deadline (``perform(_:deadline:label:)``).
    static func idleTimeout(_ duration: Duration) -> TimeInterval {
        max(1, seconds(duration).rounded(.up))
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return max(0.001, TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }
}

/// The shared state of one attempt: resumes its continuation exactly once (answer, deadline or cancellation).
private final class AttemptState: @unchecked Sendable {
    private struct Inner {
        var task: URLSessionDataTask?
        var continuation: CheckedContinuation<PayTransport.Attempt, Never>?
        var done = false
        var cancelledEarly = false
    }

    private let lock = Mutex(Inner())

    func start(
        _ task: URLSessionDataTask, continuation: CheckedContinuation<PayTransport.Attempt, Never>, deadline: Duration,
        label: String
    ) {
        let cancelled = lock.withLock { inner -> Bool in
            inner.task = task
            inner.continuation = continuation
            return inner.cancelledEarly
        }
        if cancelled {
            finish(.cancelled, continuation: continuation)
            return
        }
        let (seconds, attoseconds) = deadline.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            if let continuation = take() {
                task.cancel()
                continuation.resume(returning: .timeout("no complete answer within \(deadline)"))
            }
        }
        task.resume()
    }

    func finish(_ attempt: PayTransport.Attempt, continuation: CheckedContinuation<PayTransport.Attempt, Never>) {
        let mine = lock.withLock { inner -> Bool in
            guard !inner.done else { return false }
            inner.done = true
            inner.continuation = nil
            return true
        }
        if mine { continuation.resume(returning: attempt) }
    }

    func cancel() {
        let task = lock.withLock { inner -> URLSessionDataTask? in
            inner.cancelledEarly = true
            return inner.task
        }
        task?.cancel()
        if let continuation = take() { continuation.resume(returning: .cancelled) }
    }

    private func take() -> CheckedContinuation<PayTransport.Attempt, Never>? {
        lock.withLock { inner in
            guard !inner.done, let continuation = inner.continuation else { return nil }
            inner.done = true
            inner.continuation = nil
            return continuation
        }
    }
}
