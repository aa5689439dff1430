import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitHTTP
import Synchronization

/// An ``EthereumNode`` reached by JSON-RPC 2.0 over HTTP POST, through an ``HTTPTransport`` (libcurl by default).
///
/// Each request gets the next id from an atomic counter; responses are parsed with the project's
/// strict JSON (numbers stay text). A JSON-RPC error object becomes ``NodeError/rpc(code:message:method:)``
/// with the node's code and message, whatever the HTTP status.
///
/// Transport rules (see docs/ARCHITECTURE.md, "Transport rules"):
/// - ``timeout`` bounds each call as a whole, retries and the request in flight included;
/// - a request that never left (refused, DNS, TLS) is retried, up to ``maxRetries`` times, for any method;
/// - idempotent reads (``isIdempotent(_:)``) are also retried after a lost answer, a 429 or a 5xx;
/// - any other method whose answer is lost fails with ``NodeError/outcomeUnknown(method:reason:)`` and is
///   never sent again; ``sendRawTransaction(_:)`` first asks `eth_getTransactionByHash` for the hash it
///   already knows (keccak256 of the raw bytes) and returns it when the node has the transaction;
/// - redirects are refused, response bodies are capped (``maxResponseBytes``).
public final class JSONRPCClient: EthereumNode {
    /// The node's endpoint.
    public let url: URL
    /// How long one call may take in all (``NodeError/timeout(method:)`` after it).
    public let timeout: Duration
    /// Sends the requests.
    public let transport: any HTTPTransport
    /// Repeats after the first attempt, for requests that may be repeated (see the type's rules).
    public let maxRetries: Int
    /// The largest response body accepted.
    public let maxResponseBytes: Int

    private let nextID = Atomic<Int>(0)

    /// A client for the node at `url`; each call may take up to `timeout` (30 s), with up to `maxRetries`
    /// (2) repeats where safe, bodies up to `maxResponseBytes` (8 MiB).
    public init(
        url: URL, timeout: Duration = .seconds(30), transport: any HTTPTransport = CurlHTTPTransport.shared,
        maxRetries: Int = 2, maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) {
        self.url = url
        self.timeout = timeout
        self.transport = transport
        self.maxRetries = max(0, maxRetries)
        self.maxResponseBytes = max(1, maxResponseBytes)
    }

    /// The methods that only read, so repeating them after a lost answer is harmless.
    public static let idempotentMethods: Set<String> = [
        "eth_chainId", "net_version", "web3_clientVersion", "eth_blockNumber", "eth_syncing", "eth_gasPrice",
        "eth_maxPriorityFeePerGas", "eth_feeHistory", "eth_estimateGas", "eth_call", "eth_accounts",
    ]

    /// Whether `method` only reads: one of ``idempotentMethods`` or an `eth_get…` method.
    public static func isIdempotent(_ method: String) -> Bool {
        idempotentMethods.contains(method) || method.hasPrefix("eth_get")
    }

    /// Sends `method` with `params` and returns the `result` member of the response (possibly `null`).
    public func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let idempotent = Self.isIdempotent(method)
        var attempt = 0
        // What the last attempt ended with, reported when the deadline leaves no time for another.
        var lastFailure: NodeError = .timeout(method: method)
        while true {
            let id = nextID.add(1, ordering: .relaxed).newValue
            let body = JSONValue.object(
                JSONObject([
                    "jsonrpc": .string("2.0"), "id": .number(String(id)), "method": .string(method),
                    "params": .array(params),
                ])
            ).serialized
            let request = HTTPRequest(
                method: "POST", url: url,
                headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")],
                body: Array(body.utf8), deadline: deadline, connectTimeout: min(timeout, .seconds(10)),
                maxResponseBytes: maxResponseBytes)
            let retryAllowed = attempt < maxRetries
            var wait = Self.backoff(attempt)
            let outcome: Result<HTTPResponse, HTTPError>
            do { outcome = .success(try await transport.send(request)) } catch { outcome = .failure(error) }
            switch outcome {
            case .success(let response):
                let retryableStatus = response.status == 429 || (500..<600).contains(response.status)
                guard idempotent, retryAllowed, retryableStatus, !Self.hasRPCError(response.body) else {
                    return try Self.result(of: response.body, status: response.status, id: id, method: method)
                }
                if let text = response.header("retry-after"), let asked = RetryAfter.delay(text, cap: .seconds(2)) {
                    wait = asked
                }
                lastFailure = .http(status: response.status, method: method)
            case .failure(let error):
                switch error {
                case .notSent(let reason):
                    lastFailure = .transport("\(method) to \(endpoint): \(reason)")
                    guard retryAllowed else { throw lastFailure }
                case .outcomeUnknown(let reason):
                    guard idempotent else { throw .outcomeUnknown(method: method, reason: reason) }
                    lastFailure = .transport("\(method) to \(endpoint): \(reason)")
                    guard retryAllowed else { throw lastFailure }
                case .timeout(let sent):
                    if sent && !idempotent {
                        throw .outcomeUnknown(method: method, reason: "no answer within \(timeout)")
                    }
                    // Never sent on a retry: the earlier attempt's failure (refused, 5xx) says more.
                    if !sent, attempt > 0, lastFailure != .timeout(method: method) { throw lastFailure }
                    throw .timeout(method: method)
                case .cancelled:
                    throw .cancelled(method: method)
                case .redirectRefused:
                    throw .transport("\(method) to \(endpoint): \(error)")
                case .bodyTooLarge:
                    throw .invalidResponse(method: method, reason: "\(error)")
                }
            }
            // Wait, but never past the deadline; without time for another attempt the deadline decides.
            let now = clock.now
            guard now.advanced(by: wait) < deadline else { throw lastFailure }
            do { try await Task.sleep(until: now.advanced(by: wait), clock: clock) } catch {
                throw .cancelled(method: method)
            }
            attempt += 1
        }
    }

    /// `eth_sendRawTransaction`, never sent twice: when its answer is lost (or a 5xx hides it), the node is
    /// asked for the transaction by the hash the client already knows; found, the hash is returned, else
    /// ``NodeError/outcomeUnknown(method:reason:)``. "Already known" answers are checked the same way.
    public func sendRawTransaction(_ raw: [UInt8]) async throws(NodeError) -> Bytes32 {
        let method = "eth_sendRawTransaction"
        let hash = Keccak256.hash(raw)
        let lost: String
        do {
            let result = try await call(method: method, params: [.string(Hex.encode(raw))])
            return try NodeResponseReader(method: method).bytes32(result, field: "result")
        } catch {
            switch error {
            case .outcomeUnknown(_, let reason): lost = reason
            case .timeout: lost = "no answer within \(timeout)"
            case .http(let status, _) where status >= 500: lost = "HTTP status \(status) without a JSON-RPC answer"
            case .rpc(_, let message, _) where Self.isAlreadyKnown(message): lost = "the node says \(message)"
            default: throw error
            }
        }
        do {
            if try await transactionByHash(hash) != nil { return hash }
        } catch {
            throw .outcomeUnknown(
                method: method, reason: "\(lost); eth_getTransactionByHash(\(hash.hex)) failed too: \(error)")
        }
        throw .outcomeUnknown(method: method, reason: "\(lost); the node does not know \(hash.hex)")
    }

    /// The host and port, for messages (never the path or query, which may hold an API key).
    private var endpoint: String {
        let host = url.host ?? "?"
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// 100 ms doubling per attempt, at most 1.6 s.
    static func backoff(_ attempt: Int) -> Duration { .milliseconds(100 << min(attempt, 4)) }

    /// Whether a node error message says the transaction is already in its pool.
    static func isAlreadyKnown(_ message: String) -> Bool {
        let lower = message.lowercased()
        return lower.contains("already known") || lower.contains("known transaction")
            || lower.contains("already imported")
    }

    /// Whether the body is a JSON-RPC error object (then it is the answer, whatever the status).
    private static func hasRPCError(_ body: [UInt8]) -> Bool {
        guard let parsed = try? JSONValue(parsing: body), case .object(let object) = parsed,
            let error = object["error"]
        else { return false }
        return error != .null
    }

    /// Reads a JSON-RPC response body: the error object, the result, or why neither makes sense.
    package static func result(of body: [UInt8], status: Int, id: Int, method: String) throws(NodeError) -> JSONValue {
        let reader = NodeResponseReader(method: method)
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: body)
        } catch {
            if !(200..<300).contains(status) { throw .http(status: status, method: method) }
            throw reader.fail("not JSON (\(error))")
        }
        guard case .object(let object) = parsed else {
            if !(200..<300).contains(status) { throw .http(status: status, method: method) }
            throw reader.fail("the body is a \(parsed.kindName), not a JSON-RPC response object")
        }
        if let error = object["error"], error != .null {
            guard case .object(let errorObject) = error else {
                throw reader.fail("error is a \(error.kindName), not an object")
            }
            guard case .number(let codeText)? = errorObject["code"], let code = Int(codeText) else {
                throw reader.fail("error.code is not an integer")
            }
            let message = errorObject["message"]?.stringValue ?? ""
            throw .rpc(code: code, message: message, method: method)
        }
        if !(200..<300).contains(status) { throw .http(status: status, method: method) }
        let echoed: String? =
            switch object["id"] {
            case .number(let text)?: text
            case .string(let text)?: text
            default: nil
            }
        guard echoed == String(id) else {
            let shown = EchoedText.abbreviated(object["id"]?.serialized ?? "missing")
            throw reader.fail("id \(shown) does not match the request's \(id)")
        }
        guard let result = object["result"] else { throw reader.fail("neither result nor error") }
        return result
    }
}
