import EthereumPrimitives
import Foundation
import SignerKitHTTPServer
import SignerKitSupport

/// The service on HTTP: `POST /` with `Authorization: Bearer <token>` carries JSON-RPC; `GET /healthz`
/// answers `{"status":"ok"}`; `GET /metrics` the Prometheus metrics. A missing or unknown token gets 401
/// before any JSON-RPC processing. Every request is logged as one JSON line (`log`), every call is written
/// to the audit log and synced before the answer leaves.
package struct ServiceHTTPHandler: Sendable {
    /// The service answering.
    package let service: SignerService
    /// The audit trail, when configured.
    package let auditLog: (any AuditTrail)?
    /// The metrics.
    package let metrics: ServiceMetrics
    /// Where structured log lines go (stderr in `signerkit serve`).
    package let log: @Sendable (String) -> Void

    /// A handler for `service`.
    package init(service: SignerService, auditLog: (any AuditTrail)?, log: @escaping @Sendable (String) -> Void) {
        self.service = service
        self.auditLog = auditLog
        self.log = log
        metrics = ServiceMetrics(
            knownMethods: Set(SignerService.signingMethods.keys).union([
                "eth_accounts", "eth_chainId", "eth_sign", "signerkit_signActions", "signerkit_preview",
            ]))
    }

    /// The server limits of the service's configuration.
    package var limits: HTTPServerLimits {
        HTTPServerLimits(
            maxConnections: UInt32(service.configuration.limits.maxConcurrentRequests),
            maxBodyBytes: service.configuration.limits.maxBodyBytes)
    }

    /// Answers one request.
    package func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        switch (request.method, request.path) {
        case ("GET", "/healthz"):
            return Self.json(200, #"{"status":"ok"}"#)
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

    /// `POST /`: authenticate, answer, audit, log.
    func jsonRPC(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let requestID = UUID().uuidString.lowercased()
        let clock = ContinuousClock()
        let start = clock.now
        guard let client = authenticated(request) else {
            metrics.recordUnauthorized()
            log(Self.logLine(requestID: requestID, client: nil, calls: 0, status: 401, duration: clock.now - start))
            return HTTPServerResponse(
                status: 401, headers: [("WWW-Authenticate", "Bearer"), ("Content-Type", "application/json")],
                body: Array(#"{"error":"unauthorized"}"#.utf8))
        }
        let answer = await service.respond(body: request.body, client: client)
        metrics.record(answer.records)
        if let auditLog, await !auditLog.append(answer.records, requestID: requestID, at: Date()) {
            // The calls were made; without their audit lines the answer is withheld.
            log(
                Self.logLine(
                    requestID: requestID, client: client.name, calls: answer.records.count, status: 503,
                    duration: clock.now - start, problem: "the audit log could not be written"))
            return Self.json(503, #"{"error":"the audit log could not be written"}"#)
        }
        let status = answer.body == nil ? 204 : 200
        log(
            Self.logLine(
                requestID: requestID, client: client.name, calls: answer.records.count, status: status,
                duration: clock.now - start))
        guard let body = answer.body else { return HTTPServerResponse(status: 204) }
        return HTTPServerResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("X-Request-Id", requestID)], body: body)
    }

    /// The client of the request's one `Authorization: Bearer` header.
    func authenticated(_ request: HTTPServerRequest) -> ServiceClient? {
        let values = request.values("Authorization")
        guard values.count == 1, let value = values.first else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return service.client(bearerToken: String(parts[1]).trimmingCharacters(in: .whitespaces))
    }

    /// One structured log line (JSON).
    static func logLine(
        requestID: String, client: String?, calls: Int, status: Int, duration: Duration, problem: String? = nil
    ) -> String {
        var object = JSONObject([
            "time": .string(AuditLog.timestamp(Date())), "level": .string(problem == nil ? "info" : "error"),
            "msg": .string("request"), "requestId": .string(requestID), "calls": .number(String(calls)),
            "status": .number(String(status)), "ms": .number(String(duration.millisecondsRoundedUp)),
        ])
        object["client"] = client.map(JSONValue.string) ?? .null
        if let problem { object["problem"] = .string(problem) }
        return JSONValue.object(object).serialized
    }

    static func json(_ status: Int, _ text: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }
}
