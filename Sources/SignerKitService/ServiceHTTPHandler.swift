import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitHTTPServer
import SignerKitSupport

/// The service on HTTP: `POST /` with `Authorization: Bearer <token>` carries JSON-RPC; `GET /healthz`
/// answers `{"status":"ok","version":"X.Y.Z"}`; `GET /metrics` the Prometheus metrics. A missing or unknown token gets 401
/// before any JSON-RPC processing (on a server given ``checkHead(_:)``, before the body is even read). Every
/// request is logged as one JSON line (`log`), every call is written to the audit log and synced before the
/// answer leaves.
package struct ServiceHTTPHandler: Sendable {
    /// The service answering.
    package let service: SignerService
    /// The audit trail, when configured (the service's own).
    package var auditLog: (any AuditTrail)? { service.audit }
    /// The metrics.
    package let metrics: ServiceMetrics
    /// Where structured log lines go (stderr in `signerkit serve`).
    package let log: @Sendable (String) -> Void
    /// The JSON-RPC requests running now, at most `limits.maxConcurrentRequests`.
    let gate: RequestGate

    /// A handler for `service`.
    package init(service: SignerService, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.log = log
        gate = RequestGate(limit: service.configuration.limits.maxConcurrentRequests)
        metrics = ServiceMetrics(
            knownMethods: Set(SignerService.signingMethods.keys).union([
                "eth_accounts", "eth_chainId", "eth_sign", "signerkit_signActions", "signerkit_preview",
                "wallet_getCapabilities", "wallet_sendCalls", "wallet_getCallsStatus", "wallet_showCallsStatus",
            ]), knownBackends: service.backendNames)
    }

    /// The server limits of the service's configuration.
    package var limits: HTTPServerLimits {
        let limits = service.configuration.limits
        return HTTPServerLimits(
            maxConnections: UInt32(limits.maxConnections),
            maxConnectionsPerAddress: UInt32(limits.maxConnectionsPerAddress),
            requestReceiveTimeout: limits.requestReceiveTimeout, maxBodyBytes: limits.maxBodyBytes)
    }

    /// The server's decision on a request's head (``HTTPServer/HeadCheck``): `POST /` with a valid token is
    /// credentialed (its connection keeps its slot when the server makes room), without one it is answered
    /// 401 at once, its body unread; anything else is read as usual.
    package func checkHead(_ head: HTTPServerRequest) -> HTTPServerHeadVerdict {
        guard head.method == "POST", head.path == "/" else { return .anonymous }
        guard authenticated(head) != nil else {
            return .refuse(unauthorized(Exchange(requestID: RequestIDs.next(), start: ContinuousClock.now)))
        }
        return .credentialed
    }

    /// Answers one request: `POST /` (JSON-RPC), `GET /healthz`, `GET /metrics`, and the approval page's
    /// static assets (`GET /approvals`, ``ApprovalPage``).
    package func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        // The approval page (`GET /approvals` and its script and style): static, credential-free assets.
        if let page = ApprovalPage.response(for: request.path, method: request.method) { return page }
        switch (request.method, request.path) {
        case ("GET", "/healthz"):
            return Self.health
        case ("GET", "/metrics"):
            return HTTPServerResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                body: Array(metrics.exposition.utf8))
        case ("POST", "/"):
            return await jsonRPC(request)
        case (_, "/"), (_, "/healthz"), (_, "/metrics"):
            return HTTPServerResponse(status: 405, headers: [("Allow", request.path == "/" ? "POST" : "GET")])
        default:
            return Self.json(404, #"{"error":"not found"}"#)
        }
    }

    /// `POST /`: authenticate, answer (once per `Idempotency-Key`), audit, log.
    func jsonRPC(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let exchange = Exchange(requestID: RequestIDs.next(), start: ContinuousClock.now)
        guard let client = authenticated(request) else { return unauthorized(exchange) }
        guard gate.tryEnter() else {
            metrics.recordOverloaded()
            var response = refuse(
                503, "\(gate.limit) requests are running (limits.maxConcurrentRequests): retry later",
                client: client, exchange: exchange)
            response.headers.append(("Retry-After", "1"))
            return response
        }
        defer { gate.leave() }
        let key: String?
        switch IdempotencyHeader.read(request) {
        case .success(let found): key = found
        case .failure(let problem): return refuse(400, problem.message, client: client, exchange: exchange)
        }
        var response: HTTPServerResponse
        if let key, let store = service.idempotency {
            response = await once(request, client: client, key: key, store: store, exchange: exchange)
        } else {
            response = await run(request.body, client: client, key: key, exchange: exchange).response
        }
        if response.status == 200, ReceiptHeader.isRequested(request), let ledger = service.ledger {
            response.headers.append(await ReceiptHeader.field(for: exchange.requestID, in: ledger))
        }
        return response
    }

    /// Answers and audits a body; `completed` says whether every call succeeded and its audit lines are on
    /// disk (only such an answer is kept for retries).
    func run(_ body: [UInt8], client: ServiceClient, key: String?, exchange: Exchange) async -> (
        response: HTTPServerResponse, completed: Bool
    ) {
        let answer = await service.respond(
            body: body, client: client, idempotencyKey: key, requestID: exchange.requestID)
        let status = answer.body == nil ? 204 : 200
        guard await audited(answer.records, client: client, exchange: exchange, status: status) else {
            return (Self.auditFailure, false)
        }
        return (exchange.response(answer.body), answer.records.allSatisfy { $0.errorCode == nil })
    }

    /// Records calls in the metrics and the audit trail; logs the request. `false`: the audit trail could not
    /// be written (the calls were made; the answer must be withheld).
    func audited(_ records: [CallRecord], client: ServiceClient, exchange: Exchange, status: Int) async -> Bool {
        metrics.record(records)
        if let auditLog, await !auditLog.append(records, requestID: exchange.requestID, at: Date()) {
            log(
                exchange.logLine(
                    client: client.name, calls: records.count, status: 503,
                    problem: "the audit log could not be written"))
            return false
        }
        var problem: String?
        if let failed = records.lazy.compactMap(\.idempotencyProblem).first {
            problem = "the answer was not stored for retries: \(failed)"
        }
        log(exchange.logLine(client: client.name, calls: records.count, status: status, problem: problem))
        return true
    }

    /// The 401 of a request without a valid token (counted and logged).
    func unauthorized(_ exchange: Exchange) -> HTTPServerResponse {
        metrics.recordUnauthorized()
        log(exchange.logLine(client: nil, calls: 0, status: 401))
        return HTTPServerResponse(
            status: 401, headers: [("WWW-Authenticate", "Bearer"), ("Content-Type", "application/json")],
            body: Array(#"{"error":"unauthorized"}"#.utf8))
    }

    /// `GET /healthz`: `{"status":"ok","version":"X.Y.Z"}`.
    static let health = json(200, #"{"status":"ok","version":"\#(SignerKitVersion.current)"}"#)

    /// What the service answers when the audit trail cannot be written.
    static let auditFailure = json(503, #"{"error":"the audit log could not be written"}"#)

    /// The client of the request's one `Authorization: Bearer` header; none when the value holds a control
    /// character (a NUL and what follows it must never be cut off into a shorter, valid token).
    func authenticated(_ request: HTTPServerRequest) -> ServiceClient? {
        let values = request.values("authorization")
        guard values.count == 1, let value = values.first else { return nil }
        let isControl: (UInt8) -> Bool = { ($0 < 0x20 && $0 != UInt8(ascii: "\t")) || $0 == 0x7F }
        guard !value.utf8.contains(where: isControl) else { return nil }
        // `Bearer` (any case), spaces, the token; spaces and tabs around the token are not part of it.
        var bytes = Substring(value).utf8[...]
        let scheme = bytes.prefix { $0 != UInt8(ascii: " ") }
        guard scheme.count == 6, zip(scheme, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        bytes = bytes.dropFirst(6)
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard bytes.first == UInt8(ascii: " ") else { return nil }
        bytes = bytes.drop(while: isBlank)
        while let last = bytes.last, isBlank(last) { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { return nil }
        return service.client(bearerToken: Array(bytes))
    }

    static func json(_ status: Int, _ text: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }
}
