import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKit
import SignerKitCurl

/// The calls SignerKit makes to a remote signer, on the one JSON-RPC client (`JSONRPCClient`) and the one
/// retrying HTTP call (`RetryingHTTPCall`) over libcurl, with the bearer token in every request's
/// `Authorization` header when there is one.
///
/// Transport rules: each call ends by ``timeout`` or the deadline of the request it serves (`CallerDeadline`),
/// whichever is earlier; a request that never left is repeated; `eth_accounts` and the public-key listing
/// are also repeated after a lost answer or a 5xx, with back-off on ``clock``; a signing call whose answer is
/// lost is never repeated (``RemoteSignerError/outcomeUnknown(call:reason:)``). `eth_sendTransaction` is not
/// a call this client makes: the dispatcher broadcasts through its own journalled pipeline.
public struct RemoteSignerClient: Sendable, CustomStringConvertible {
    /// Where the remote listens.
    public let endpoint: RemoteSignerEndpoint
    /// Which API it speaks.
    public let kind: RemoteSignerKind
    /// Sends each attempt (libcurl by default).
    public let transport: any HTTPTransport
    /// What every deadline and back-off reads.
    public let clock: any SignerClock
    /// The longest one call may take, retries included.
    public let timeout: Duration
    /// The bearer token, if the remote wants one.
    let token: RemoteSignerToken?
    /// JSON-RPC 2.0 over `POST` to the endpoint.
    private let rpc: JSONRPCClient

    /// A client of the remote at `endpoint` speaking `kind`, calling with `token` (none by default).
    public init(
        endpoint: RemoteSignerEndpoint, kind: RemoteSignerKind, token: RemoteSignerToken? = nil,
        transport: any HTTPTransport = CurlHTTPTransport.shared, clock: any SignerClock = SystemClock(),
        timeout: Duration = .seconds(30)
    ) {
        self.endpoint = endpoint
        self.kind = kind
        self.token = token
        self.transport = transport
        self.clock = clock
        self.timeout = timeout
        rpc = JSONRPCClient(
            url: endpoint.url, timeout: timeout, transport: transport, maxRetries: 2, maxResponseBytes: 1 << 20,
            clock: clock, headers: Self.authorization(token))
    }

    /// The accounts the remote signs for (`eth_accounts`), in its order.
    ///
    /// - Throws: ``RemoteSignerError``; ``RemoteSignerError/malformedAnswer(call:field:reason:)`` naming the
    ///   entry that is not an address.
    public func accounts() async throws(RemoteSignerError) -> [Address] {
        let answer = try await call("eth_accounts", [])
        guard let list = answer.arrayValue else {
            throw .malformedAnswer(call: "eth_accounts", field: "result", reason: "a \(answer.kindName), not an array")
        }
        var accounts: [Address] = []
        for (index, item) in list.enumerated() {
            guard let text = item.stringValue, let address = try? Address(text) else {
                throw .malformedAnswer(call: "eth_accounts", field: "result[\(index)]", reason: "not an address")
            }
            accounts.append(address)
        }
        return accounts
    }

    /// Calls JSON-RPC `method` with `params` and returns its `result`.
    ///
    /// - Throws: ``RemoteSignerError``: the remote's JSON-RPC error, its HTTP status (401/403 as
    ///   ``RemoteSignerError/unauthorized(url:status:)``), unreachable, timed out, or a lost answer.
    public func call(_ method: String, _ params: [JSONValue]) async throws(RemoteSignerError) -> JSONValue {
        do { return try await rpc.call(method: method, params: params) } catch { throw remoteError(error) }
    }

    /// web3signer's `POST /api/v1/eth1/sign/{publicKey}` with `{"data": "0x…"}`: the key whose uncompressed
    /// public key (64 bytes X‖Y) is `publicKey` signs keccak256(`data`). The answer is returned as read, low-s
    /// or not; whoever uses it verifies it over keccak256(`data`).
    ///
    /// - Throws: ``RemoteSignerError``; ``RemoteSignerError/httpStatus(url:call:status:)`` 404 when the remote
    ///   holds no such key; ``RemoteSignerError/malformedAnswer(call:field:reason:)`` for a body that is not a
    ///   65-byte signature.
    public func signKeccak(of data: [UInt8], publicKey: [UInt8]) async throws(RemoteSignerError)
        -> RecoverableSignature
    {
        let call = "eth1/sign"
        let body = JSONValue.object(JSONObject(["data": .string(Hex.encode(data))])).serialized
        let response = try await send(
            "POST", path: "/api/v1/eth1/sign/\(Hex.encode(publicKey))", body: Array(body.utf8), call: call,
            idempotent: false)
        let text = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        do { return try RecoverableSignature(hex: text) } catch {
            throw .malformedAnswer(call: call, field: "body", reason: "not a 65-byte signature (\(error))")
        }
    }

    /// web3signer's `GET /api/v1/eth1/publicKeys`: the uncompressed public keys (64 bytes X‖Y each) it holds.
    ///
    /// - Throws: ``RemoteSignerError``; ``RemoteSignerError/malformedAnswer(call:field:reason:)`` naming the
    ///   entry that is not a public key.
    public func publicKeys() async throws(RemoteSignerError) -> [[UInt8]] {
        let call = "eth1/publicKeys"
        let response = try await send("GET", path: "/api/v1/eth1/publicKeys", body: nil, call: call, idempotent: true)
        guard let list = (try? JSONValue(parsing: response.body))?.arrayValue else {
            throw .malformedAnswer(call: call, field: "body", reason: "not a JSON array")
        }
        var keys: [[UInt8]] = []
        for (index, item) in list.enumerated() {
            var bytes = (try? Hex.decode(item.stringValue ?? "")) ?? []
            if bytes.count == 65, bytes[0] == 0x04 { bytes.removeFirst() }
            guard bytes.count == 64 else {
                throw .malformedAnswer(call: call, field: "[\(index)]", reason: "not a 64-byte public key")
            }
            keys.append(bytes)
        }
        return keys
    }

    /// One REST exchange with a 2xx answer.
    private func send(_ method: String, path: String, body: [UInt8]?, call: String, idempotent: Bool)
        async throws(RemoteSignerError) -> HTTPResponse
    {
        let deadline = CallerDeadline.bounding(clock.now.advanced(by: timeout), on: clock)
        let http = RetryingHTTPCall(transport: transport, policy: Self.retryPolicy, clock: clock)
        var headers = [HTTPHeader("Accept", "application/json, text/plain")] + Self.authorization(token)
        if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        let url = endpoint.appending(path)
        let response: HTTPResponse
        do {
            response = try await http.send(idempotent: idempotent, within: .deadline(deadline)) { attemptDeadline in
                HTTPRequest(
                    method: method, url: url, headers: headers, body: body, deadline: attemptDeadline,
                    connectTimeout: min(timeout, .seconds(10)), maxResponseBytes: 1 << 20)
            }
        } catch {
            throw transportError(error, call: call)
        }
        if response.status == 401 || response.status == 403 {
            throw .unauthorized(url: endpoint.description, status: response.status)
        }
        guard response.isSuccess else {
            throw .httpStatus(url: endpoint.description, call: call, status: response.status)
        }
        return response
    }

    /// `RemoteSignerClient(<kind> at <url>)`; never the token.
    public var description: String { "RemoteSignerClient(\(kind.rawValue) at \(endpoint))" }

    /// The REST calls' retries: 2, from 100 ms doubling to at most 1 s, half of each wait at random.
    static let retryPolicy = HTTPRetryPolicy(
        maxRetries: 2, baseDelay: .milliseconds(100), maxDelay: .seconds(1), jitter: 0.5)

    /// The `Authorization` header of `token`, if any.
    private static func authorization(_ token: RemoteSignerToken?) -> [HTTPHeader] {
        token.map { [HTTPHeader("Authorization", "Bearer \($0.value)")] } ?? []
    }

    /// A JSON-RPC client's error as the remote signer's.
    private func remoteError(_ error: NodeError) -> RemoteSignerError {
        let url = endpoint.description
        switch error {
        case .rpc(let code, let message, let method):
            return .rpc(call: method, code: code, message: RemoteSignerError.quoted(message))
        case .http(let status, let method):
            if status == 401 || status == 403 { return .unauthorized(url: url, status: status) }
            return .httpStatus(url: url, call: method, status: status)
        case .transport(let reason): return .unreachable(url: url, reason: reason)
        case .invalidResponse(let method, let reason):
            return .malformedAnswer(call: method, field: "response", reason: reason)
        case .timeout(let method), .cancelled(let method): return .timedOut(url: url, call: method)
        case .outcomeUnknown(let method, let reason): return .outcomeUnknown(call: method, reason: reason)
        }
    }

    /// A REST exchange's failure as the remote signer's.
    private func transportError(_ error: RetryingHTTPCallError, call: String) -> RemoteSignerError {
        let url = endpoint.description
        switch error {
        case .outcomeUnknown(let cause): return .outcomeUnknown(call: call, reason: cause.description)
        case .failed(.timeout, _), .cancelled: return .timedOut(url: url, call: call)
        case .failed(let cause, _): return .unreachable(url: url, reason: cause.description)
        case .noTimeForRetry(.failure(let cause)): return .unreachable(url: url, reason: cause.description)
        case .noTimeForRetry(.success(let response)):
            return .httpStatus(url: url, call: call, status: response.status)
        }
    }
}
