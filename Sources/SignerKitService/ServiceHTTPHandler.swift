import EthereumPrimitives
import Foundation
import SignerKitHTTPServer

/// The service on HTTP: `POST /` with `Authorization: Bearer <token>` carries JSON-RPC; `GET /healthz`
/// answers `{"status":"ok"}`. A missing or unknown token gets 401 before any JSON-RPC processing.
package struct ServiceHTTPHandler: Sendable {
    /// The service answering.
    package let service: SignerService

    /// A handler for `service`.
    package init(service: SignerService) { self.service = service }

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
        case ("POST", "/"):
            guard let client = authenticated(request) else {
                return HTTPServerResponse(
                    status: 401, headers: [("WWW-Authenticate", "Bearer"), ("Content-Type", "application/json")],
                    body: Array(#"{"error":"unauthorized"}"#.utf8))
            }
            guard let body = await service.answer(body: request.body, client: client) else {
                return HTTPServerResponse(status: 204)
            }
            return HTTPServerResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
        case (_, "/"), (_, "/healthz"):
            return HTTPServerResponse(status: 405, headers: [("Allow", request.path == "/" ? "POST" : "GET")])
        default:
            return Self.json(404, #"{"error":"not found"}"#)
        }
    }

    /// The client of the request's one `Authorization: Bearer` header.
    func authenticated(_ request: HTTPServerRequest) -> ServiceClient? {
        let values = request.values("Authorization")
        guard values.count == 1, let value = values.first else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return service.client(bearerToken: String(parts[1]).trimmingCharacters(in: .whitespaces))
    }

    static func json(_ status: Int, _ text: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }
}
