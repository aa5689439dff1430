import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitCurl
import Synchronization

/// An `EthereumNode` reached by JSON-RPC 2.0 over HTTP POST, through an `HTTPTransport` (libcurl by default).
///
/// Each request gets the next id from an atomic counter; responses are parsed with the project's
/// strict JSON (numbers stay text). A JSON-RPC error object becomes `NodeError/rpc(code:message:method:)`
/// with the node's code and message, whatever the HTTP status.
///
/// Transport rules (see docs/ARCHITECTURE.md, "Transport rules"):
/// - ``timeout`` bounds each call as a whole, retries and the request in flight included, and so does the deadline
///   of the request the call serves (`CallerDeadline`) when it is earlier;
/// - a request that never left (refused, DNS, TLS) is retried, up to ``maxRetries`` times, for any method;
/// - idempotent reads (``isIdempotent(_:)``) are also retried after a lost answer, a 429 or a 5xx;
/// - any other method whose answer is lost fails with `NodeError/outcomeUnknown(method:reason:)` and is
///   never sent again; ``sendRawTransaction(_:)`` first asks `eth_getTransactionByHash` for the hash it
///   already knows (keccak256 of the raw bytes) and returns it when the node has the transaction;
/// - redirects are refused, response bodies are capped (``maxResponseBytes``).
///
/// Every attempt goes through one `RetryingHTTPCall` (SignerKitHTTP), whose waits run on ``clock``.
public final class JSONRPCClient: EthereumNode {
    /// The node's endpoint.
    public let url: URL
    /// How long one call may take in all (`NodeError/timeout(method:)` after it).
    public let timeout: Duration
    /// Sends the requests.
    public let transport: any HTTPTransport
    /// Repeats after the first attempt, for requests that may be repeated (see the type's rules).
    public let maxRetries: Int
    /// The largest response body accepted.
    public let maxResponseBytes: Int
    /// Where each call's deadline and every wait between attempts are read.
    public let clock: any SignerClock
    /// Header fields every request also carries (a remote signer's `Authorization: Bearer …`); never shown in
    /// an error or a description.
    private let extraHeaders: [HTTPHeader]

    private let nextID = Atomic<Int>(0)
    /// The retrying call every request goes through.
    private let http: RetryingHTTPCall

    /// A client for the node at `url`; each call may take up to `timeout` (30 s), with up to `maxRetries`
    /// (2) repeats where safe, bodies up to `maxResponseBytes` (8 MiB), its waits on `clock` (the system's);
    /// every request also carries `headers` (none by default).
    public init(
        url: URL, timeout: Duration = .seconds(30), transport: any HTTPTransport = CurlHTTPTransport.shared,
        maxRetries: Int = 2, maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes,
        clock: any SignerClock = SystemClock(), headers: [HTTPHeader] = []
    ) {
        extraHeaders = headers
        self.url = url
        self.timeout = timeout
        self.transport = transport
        self.maxRetries = max(0, maxRetries)
        self.maxResponseBytes = max(1, maxResponseBytes)
        self.clock = clock
        http = RetryingHTTPCall(transport: transport, policy: Self.retryPolicy(maxRetries: maxRetries), clock: clock)
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
        // Never past the deadline of the request this call serves (``CallerDeadline``).
        let deadline = CallerDeadline.bounding(clock.now.advanced(by: timeout), on: clock)
        var id = 0
        let response: HTTPResponse
        do {
            response = try await http.send(
                idempotent: Self.isIdempotent(method), within: .deadline(deadline),
                isDefinitive: { Self.hasRPCError($0.body) }
            ) { attemptDeadline in
                id = nextID.add(1, ordering: .relaxed).newValue
                return request(method: method, params: params, id: id, deadline: attemptDeadline)
            }
        } catch {
            throw nodeError(error, method: method)
        }
        return try Self.result(of: response.body, status: response.status, id: id, method: method)
    }

    /// Sends `requests` as one JSON-RPC 2.0 batch (one POST, one round trip) and returns each one's outcome in
    /// request order, matched by id. Retried like ``call(method:params:)`` only when every method only reads.
    /// A node that answers the batch as a whole with one JSON-RPC error object (many providers refuse
    /// batches) gets the requests one by one instead (`callOneByOne(_:)`).
    public func callBatch(_ requests: [NodeRequest]) async throws(NodeError) -> [Result<JSONValue, NodeError>] {
        guard requests.count > 1 else {
            guard let only = requests.first else { return [] }
            do { return [.success(try await call(method: only.method, params: only.params))] } catch {
                guard case .rpc = error else { throw error }
                return [.failure(error)]
            }
        }
        let label = "batch of \(requests.count) (\(requests[0].method)…)"
        let deadline = CallerDeadline.bounding(clock.now.advanced(by: timeout), on: clock)
        var firstID = 0
        let response: HTTPResponse
        do {
            response = try await http.send(
                idempotent: requests.allSatisfy { Self.isIdempotent($0.method) }, within: .deadline(deadline),
                isDefinitive: { _ in false }
            ) { attemptDeadline in
                firstID = nextID.add(requests.count, ordering: .relaxed).newValue - requests.count + 1
                let body = JSONValue.array(
                    requests.enumerated().map { offset, request in
                        Self.requestObject(method: request.method, params: request.params, id: firstID + offset)
                    })
                return post(body, deadline: attemptDeadline)
            }
        } catch {
            throw nodeError(error, method: label)
        }
        do {
            return try Self.batchResults(
                of: response.body, status: response.status, firstID: firstID, requests: requests)
        } catch {
            guard case .rpc = error, Self.hasRPCError(response.body) else { throw error }
            return try await callOneByOne(requests)
        }
    }

    /// Reads a JSON-RPC batch answer: one response object per request, in any order, matched by id.
    package static func batchResults(of body: [UInt8], status: Int, firstID: Int, requests: [NodeRequest])
        throws(NodeError) -> [Result<JSONValue, NodeError>]
    {
        let label = "batch of \(requests.count) (\(requests.first?.method ?? "none")…)"
        let reader = NodeResponseReader(method: label)
        let parsed: JSONValue
        do { parsed = try JSONValue(parsing: body) } catch {
            if !(200..<300).contains(status) { throw .http(status: status, method: label) }
            throw reader.fail("not JSON (\(error))")
        }
        guard case .array(let answers) = parsed else {
            // A node that refuses batches answers with one error object.
            let serialized = Array(parsed.serialized.utf8)
            _ = try result(of: serialized, status: status, id: firstID, method: label)
            throw reader.fail("the answer to a batch is a \(parsed.kindName), not an array")
        }
        var outcomes = [Result<JSONValue, NodeError>?](repeating: nil, count: requests.count)
        for (position, answer) in answers.enumerated() {
            let echoed: Int? =
                switch answer["id"] {
                case .number(let text)?: Int(text)
                case .string(let text)?: Int(text)
                default: nil
                }
            guard let echoed, echoed >= firstID, echoed - firstID < requests.count, outcomes[echoed - firstID] == nil
            else {
                throw reader.fail("answer [\(position)] has no id of this batch, or a repeated one")
            }
            let slot = echoed - firstID
            do {
                let value = try result(
                    of: Array(answer.serialized.utf8), status: 200, id: echoed, method: requests[slot].method)
                outcomes[slot] = .success(value)
            } catch {
                guard case .rpc = error else { throw error }
                outcomes[slot] = .failure(error)
            }
        }
        var filled: [Result<JSONValue, NodeError>] = []
        for (slot, outcome) in outcomes.enumerated() {
            guard let outcome else { throw reader.fail("no answer for request [\(slot)] (\(requests[slot].method))") }
            filled.append(outcome)
        }
        return filled
    }

    /// The POST of one attempt: a JSON-RPC 2.0 request object with its own id.
    private func request(method: String, params: [JSONValue], id: Int, deadline: ContinuousClock.Instant)
        -> HTTPRequest
    {
        post(Self.requestObject(method: method, params: params, id: id), deadline: deadline)
    }

    /// A JSON-RPC 2.0 request object.
    private static func requestObject(method: String, params: [JSONValue], id: Int) -> JSONValue {
        .object(
            JSONObject([
                "jsonrpc": .string("2.0"), "id": .number(String(id)), "method": .string(method),
                "params": .array(params),
            ]))
    }

    /// The POST of `body` (a request object or a batch array).
    private func post(_ body: JSONValue, deadline: ContinuousClock.Instant) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: url,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")]
                + extraHeaders,
            body: Array(body.serialized.utf8), deadline: deadline, connectTimeout: min(timeout, .seconds(10)),
            maxResponseBytes: maxResponseBytes)
    }

    /// What a call that ended without an answer to read throws.
    private func nodeError(_ error: RetryingHTTPCallError, method: String) -> NodeError {
        switch error {
        case .outcomeUnknown(.outcomeUnknown(let reason)):
            return .outcomeUnknown(method: method, reason: reason)
        case .outcomeUnknown:
            return .outcomeUnknown(method: method, reason: "no answer within \(timeout)")
        case .failed(.timeout(requestSent: false), let earlier?):
            // Never sent on a retry: the earlier attempt's failure (refused, 5xx) says more.
            return lastFailure(earlier, method: method)
        case .failed(let cause, _):
            switch cause {
            case .notSent(let reason), .outcomeUnknown(let reason):
                return .transport("\(method) to \(endpoint): \(reason)")
            case .timeout: return .timeout(method: method)
            case .cancelled: return .cancelled(method: method)
            case .redirectRefused: return .transport("\(method) to \(endpoint): \(cause)")
            case .bodyTooLarge: return .invalidResponse(method: method, reason: "\(cause)")
            }
        case .noTimeForRetry(let outcome):
            // The deadline leaves no time for another attempt: what the last one ended with stands.
            return lastFailure(outcome, method: method)
        case .cancelled:
            return .cancelled(method: method)
        }
    }

    /// What an attempt that was worth repeating ended with, as the call's failure.
    private func lastFailure(_ outcome: Result<HTTPResponse, HTTPError>, method: String) -> NodeError {
        switch outcome {
        case .success(let response): .http(status: response.status, method: method)
        case .failure(let error): nodeError(.failed(error, earlier: nil), method: method)
        }
    }

    /// `eth_sendRawTransaction`, never sent twice: when its answer is lost (or a 5xx hides it), the node is
    /// asked for the transaction by the hash the client already knows; found, the hash is returned, else
    /// `NodeError/outcomeUnknown(method:reason:)`. "Already known" answers are checked the same way.
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

    /// The retries of a client: `maxRetries`, back-off 100 ms doubling up to 1.6 s without jitter,
    /// `Retry-After` honoured up to 2 s, 429 and 5xx repeated for idempotent methods only.
    static func retryPolicy(maxRetries: Int) -> HTTPRetryPolicy {
        HTTPRetryPolicy(
            maxRetries: maxRetries, baseDelay: .milliseconds(100), maxDelay: .milliseconds(1600), jitter: 0,
            retryAfterCap: .seconds(2))
    }

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
                // Not a JSON-RPC error (a gateway's or an authenticating server's own body): the status says more.
                if !(200..<300).contains(status) { throw .http(status: status, method: method) }
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
