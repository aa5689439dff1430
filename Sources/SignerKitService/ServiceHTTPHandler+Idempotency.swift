import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitHTTPServer
import SignerKitSupport

extension ServiceHTTPHandler {
    /// Answers a request with an `Idempotency-Key` once: the first request with the key runs and, when every
    /// call succeeded and was audited, its response body is stored; a retry with the same body gets that body
    /// back (`Idempotent-Replayed: true`), across restarts and instances that share the store. A retry while
    /// the first runs gets 409, one with another body 422; when the store cannot answer nothing runs (503).
    func once(
        _ request: HTTPServerRequest, client: ServiceClient, key: String, store: any IdempotencyStore,
        exchange: Exchange
    ) async -> HTTPServerResponse {
        let storeKey = "header:" + key
        let claim: IdempotencyClaim
        do {
            claim = try await store.claim(
                client: client.name, key: storeKey, requestHash: Keccak256.hash(request.body),
                lease: service.idempotencyLease)
        } catch {
            return refuse(503, "idempotency store: \(error)", client: client, exchange: exchange)
        }
        switch claim {
        case .inProgress:
            return refuse(
                409, "a request with this Idempotency-Key is still running; retry after it ends", client: client,
                exchange: exchange)
        case .mismatch:
            return refuse(
                422, "this Idempotency-Key was used before with another body", client: client, exchange: exchange)
        case .answered(let body):
            let records = Self.replayRecords(of: request.body, client: client)
            let status = body.isEmpty ? 204 : 200
            guard await audited(records, client: client, exchange: exchange, status: status) else {
                return Self.auditFailure
            }
            var response = exchange.response(body.isEmpty ? nil : body)
            response.headers.append(("Idempotent-Replayed", "true"))
            return response
        case .claimed:
            let (response, completed) = await run(request.body, client: client, key: key, exchange: exchange)
            do {
                if completed {
                    try await store.complete(client: client.name, key: storeKey, answer: response.body)
                    CrashPoint.reached(.answerStored)
                } else {
                    try await store.release(client: client.name, key: storeKey)
                }
            } catch {
                // The answer goes out: a retry finds the journal's entries (or the lapsed claim) instead.
                log(
                    exchange.logLine(
                        client: client.name, calls: 0, status: response.status,
                        problem: "the idempotency store did not take the answer: \(error)"))
            }
            return response
        }
    }

    /// A refusal before any call ran, logged.
    func refuse(_ status: Int, _ message: String, client: ServiceClient, exchange: Exchange)
        -> HTTPServerResponse
    {
        log(exchange.logLine(client: client.name, calls: 0, status: status, problem: message))
        return Self.json(status, JSONValue.object(JSONObject(["error": .string(message)])).serialized)
    }

    /// One audit record per call of a replayed body (its methods; outcome `replayed`).
    static func replayRecords(of body: [UInt8], client: ServiceClient) -> [CallRecord] {
        let calls: [JSONValue]
        switch try? JSONValue(parsing: body) {
        case .array(let array)?: calls = array
        case let single?: calls = [single]
        case nil: calls = [.null]
        }
        return calls.map { call in
            var record = CallRecord(client: client.name, method: call["method"]?.stringValue ?? "")
            record.replayed = true
            return record
        }
    }
}

/// One HTTP exchange of the service: its request id (`X-Request-Id`, in logs and the audit trail) and when
/// it began.
struct Exchange: Sendable {
    let requestID: String
    let start: ContinuousClock.Instant

    /// 200 with `body`, or 204 when there is none (a body of notifications only).
    func response(_ body: [UInt8]?) -> HTTPServerResponse {
        guard let body else { return HTTPServerResponse(status: 204) }
        return HTTPServerResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("X-Request-Id", requestID)], body: body)
    }

    /// One structured log line (JSON).
    func logLine(client: String?, calls: Int, status: Int, problem: String? = nil) -> String {
        var members: [JSONObject.Member] = [
            .init(key: "time", value: .string(AuditLog.timestamp(Date()))),
            .init(key: "level", value: .string(problem == nil ? "info" : "error")),
            .init(key: "msg", value: .string("request")), .init(key: "requestId", value: .string(requestID)),
            .init(key: "calls", value: .number(String(calls))), .init(key: "status", value: .number(String(status))),
            .init(key: "ms", value: .number(String((ContinuousClock.now - start).millisecondsRoundedUp))),
            .init(key: "client", value: client.map(JSONValue.string) ?? .null),
        ]
        if let problem { members.append(.init(key: "problem", value: .string(problem))) }
        return JSONValue.object(JSONObject(members: members)).serialized
    }
}

/// The request's `Idempotency-Key` (at most one; 1 to 255 visible ASCII characters).
enum IdempotencyHeader {
    /// Why the header was refused.
    struct Problem: Error {
        let message: String
    }

    /// The key, `nil` without the header.
    static func read(_ request: HTTPServerRequest) -> Result<String?, Problem> {
        let values = request.values("Idempotency-Key")
        guard let value = values.first else { return .success(nil) }
        guard values.count == 1 else { return .failure(Problem(message: "more than one Idempotency-Key header")) }
        let key = value.trimmingCharacters(in: .whitespaces)
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return .failure(Problem(message: "Idempotency-Key must be 1 to 255 visible ASCII characters"))
        }
        return .success(key)
    }
}
