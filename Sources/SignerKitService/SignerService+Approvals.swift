import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitSupport
import Synchronization

extension SignerService {
    /// `-32010`: the call is held for approval; `data` is `{"requestId", "expiresAt", "rule"}`.
    static let heldCode = -32010
    /// `-32011`: the held request this call names (or a retry of a held call found) ended unsigned: rejected,
    /// expired or failed; `data` is its status object.
    static let heldEndedCode = -32011

    /// Refuses a policy file whose approval rules no configured approvers could ever satisfy.
    static func requireApprovers(for policies: [any ActionPolicy], among clients: [ServiceClient])
        throws(ServiceConfigurationError)
    {
        for case let rule as ApprovalRule in policies {
            let group = rule.requirement.group
            let members = clients.filter { $0.isApprover && $0.groups.contains(group) }.count
            guard members >= rule.requirement.required else {
                throw ServiceConfigurationError(
                    path: "policyFile: approvalRules (\(rule.name))",
                    problem: "needs \(rule.requirement.required) approvals of group \(group.debugDescription), "
                        + "but \(members) client\(members == 1 ? " is" : "s are") approvers in it")
            }
        }
    }

    /// Holds `prepared` for `client` (a retry under the same journal key finds its first request): `-32010`
    /// while it waits, the results once it was signed (as ``signed(_:client:deadline:journalKey:record:)``
    /// gives them), `-32011` once it ended unsigned.
    func hold(
        _ prepared: PreparedActions, client: ServiceClient, journalKey: String?, record: inout CallRecord
    ) async -> Result<[JSONValue], JSONRPCError> {
        let id = journalKey.map { HeldRequest.id(scope: [client.name, $0]) }
        let request: HeldRequest
        do {
            request = try await heldRequests.hold(
                prepared, initiator: client.name, method: record.method, id: id, journalKey: journalKey)
        } catch {
            return .failure(Self.rpcError(error))
        }
        record.heldRequest = request.id
        return Self.answer(of: request).map { result in result.arrayValue ?? [result] }
    }

    /// The call's own answer for a held request: its result once signed, `-32011` once it ended unsigned,
    /// `-32010` while it waits.
    static func answer(of request: HeldRequest) -> Result<JSONValue, JSONRPCError> {
        switch request.status {
        case .signed:
            guard let text = request.result, let result = try? JSONValue(parsing: text) else {
                return .failure(
                    .init(code: JSONRPCError.signingFailedCode, message: "the stored result does not parse"))
            }
            return .success(result)
        case .rejected, .expired, .failed:
            return .failure(
                JSONRPCError(
                    code: heldEndedCode,
                    message: "request \(request.id) was \(request.status.rawValue); nothing was signed",
                    data: status(of: request)))
        case .held, .approved, .signing:
            return .failure(
                JSONRPCError(
                    code: heldCode,
                    message: "held for approval by rule \(request.rule) (\(quorumText(request))); "
                        + "ask signerkit_requestStatus",
                    data: .object(
                        JSONObject([
                            "requestId": .string(request.id), "expiresAt": .string(rfc3339(request.expiresAt)),
                            "rule": .string(request.rule),
                        ]))))
        }
    }

    /// `signerkit_requestStatus`: `[requestId]` or `[requestId, {"waitMs": N}]` → the status object, at once or
    /// (long-poll) once the request is final or `waitMs` (bounded by the request's own time limit) has passed.
    /// The initiator and the approvers of the request's groups may ask.
    func requestStatus(_ call: ServiceCall, client: ServiceClient, deadline: ContinuousClock.Instant) async
        -> Result<JSONValue, JSONRPCError>
    {
        guard (1...2).contains(call.params.count), let id = Self.heldRequestID(call.params[0]) else {
            return .failure(.invalidParams("expected [requestId] or [requestId, {\"waitMs\": N}]"))
        }
        var wait = Duration.zero
        if call.params.count == 2 {
            guard case .object(let options) = call.params[1], options.keys.allSatisfy({ $0 == "waitMs" }),
                let text = options["waitMs"].flatMap({ if case .number(let n) = $0 { n } else { nil } }),
                let milliseconds = Int(text), milliseconds >= 0
            else { return .failure(.invalidParams("params[1]: expected {\"waitMs\": a whole number ≥ 0}")) }
            wait = .milliseconds(min(milliseconds, 3_600_000))
        }
        do {
            guard let found = try await heldRequests.request(id: id), Self.maySee(found, client) else {
                return .failure(Self.rpcError(.unknownRequest(id)))
            }
            // Answer a little before the request's own deadline, so the answer still goes out.
            let until = min(clock.now.advanced(by: wait), deadline.advanced(by: .milliseconds(-250)))
            let request = wait > .zero ? try await heldRequests.wait(for: id, until: until) : found
            return .success(Self.status(of: request))
        } catch {
            return .failure(Self.rpcError(error))
        }
    }

    /// `signerkit_approve`: `[requestId]` or `[requestId, {"digest": D}]` (the digest the approver saw; refused
    /// when it is another request's) → the status object. The approval that completes the quorum signs the
    /// request within this call.
    func approve(
        _ call: ServiceCall, client: ServiceClient, deadline: ContinuousClock.Instant, record: inout CallRecord
    )
        async -> Result<JSONValue, JSONRPCError>
    {
        guard client.isApprover else { return .failure(.forbidden("client \(client.name) is not an approver")) }
        guard (1...2).contains(call.params.count), let id = Self.heldRequestID(call.params[0]) else {
            return .failure(.invalidParams("expected [requestId] or [requestId, {\"digest\": D}]"))
        }
        var digest: String?
        if call.params.count == 2 {
            guard case .object(let options) = call.params[1], options.keys.allSatisfy({ $0 == "digest" }),
                case .string(let text)? = options["digest"]
            else { return .failure(.invalidParams("params[1]: expected {\"digest\": \"0x…\"}")) }
            digest = text
        }
        record.heldRequest = id
        do {
            var request = try await heldRequests.decide(.approve(digest: digest), on: id, by: client.approver)
            if request.status == .approved {
                request = await signHeld(request, deadline: deadline, record: &record)
            }
            return .success(Self.status(of: request))
        } catch {
            return .failure(Self.rpcError(error))
        }
    }

    /// `signerkit_reject`: `[requestId]` or `[requestId, reason]` → the status object; nothing is signed.
    func reject(_ call: ServiceCall, client: ServiceClient, record: inout CallRecord) async -> Result<
        JSONValue, JSONRPCError
    > {
        guard client.isApprover else { return .failure(.forbidden("client \(client.name) is not an approver")) }
        guard (1...2).contains(call.params.count), let id = Self.heldRequestID(call.params[0]) else {
            return .failure(.invalidParams("expected [requestId] or [requestId, reason]"))
        }
        var reason: String?
        if call.params.count == 2 {
            guard case .string(let text) = call.params[1], text.utf8.count <= 500 else {
                return .failure(.invalidParams("params[1]: expected a reason of at most 500 bytes"))
            }
            reason = text
        }
        record.heldRequest = id
        do {
            return .success(
                Self.status(of: try await heldRequests.decide(.reject(reason: reason), on: id, by: client.approver)))
        } catch {
            return .failure(Self.rpcError(error))
        }
    }

    /// `signerkit_heldRequests`: `[]` → the requests waiting in the approver's groups, oldest first, each its
    /// status object with what an approver decides on: `initiator`, `createdAt`, `digest`, `previews`.
    func heldRequestList(_ call: ServiceCall, client: ServiceClient) async -> Result<JSONValue, JSONRPCError> {
        guard client.isApprover else { return .failure(.forbidden("client \(client.name) is not an approver")) }
        guard call.params.isEmpty else { return .failure(.invalidParams("expected []")) }
        do {
            _ = try await heldRequests.expireDue()
            let waiting = try await heldRequests.store.requests(in: [.held], limit: 200)
            return .success(
                .array(
                    waiting.filter { !$0.groups.isDisjoint(with: client.groups) }.map {
                        Self.status(of: $0, detailed: true)
                    }
                ))
        } catch {
            return .failure(Self.rpcError(error))
        }
    }

    /// Signs an approved request for its initiator (whose rights are checked again now), auditing its intent
    /// first when it broadcasts; the request as it stands afterwards.
    func signHeld(_ request: HeldRequest, deadline: ContinuousClock.Instant, record: inout CallRecord) async
        -> HeldRequest
    {
        let initiator = clients.first { $0.name == request.initiator }
        let seen = Mutex<PreparedActions?>(nil)
        let audit = self.audit
        let requestID = record.requestID
        let signed: HeldRequest
        do {
            signed = try await heldRequests.sign(
                request.id, with: dispatcher, deadline: deadline,
                admit: { resolved in
                    guard let initiator else { return "client \(request.initiator) is no longer configured" }
                    return Self.refusal(
                        of: initiator, account: resolved.account, chain: resolved.action.chainId,
                        method: resolved.method, calledAs: request.method)
                },
                beforeSigning: { prepared in
                    seen.withLock { $0 = prepared }
                    guard let audit, prepared.requests.contains(where: { $0.method == .sendTransaction }) else {
                        return nil
                    }
                    var intent = self.auditRecord(client: request.initiator, method: request.method)
                    intent.heldRequest = request.id
                    intent.requestID = requestID
                    intent.note(prepared.requests)
                    return await Self.writeIntent(intent, to: audit) ? nil : "the audit trail could not be written"
                },
                result: Self.heldResult)
        } catch {
            // Signed or being signed elsewhere meanwhile: report it as it stands.
            return (try? await heldRequests.request(id: request.id)) ?? request
        }
        if let prepared = seen.withLock({ $0 }) {
            record.note(prepared.requests)
            if signed.status == .signed { record.backends = prepared.backendNames }
        }
        return signed
    }

    /// Expires held requests whose time ran out and signs approved ones no call signed (a signer that died, a
    /// failure that may pass), auditing each signing; `signerkit serve` runs it beside the journal's recovery.
    ///
    /// - Returns: how many expired and how many were signed.
    public func sweepHeldRequests() async -> (expired: Int, signed: Int) {
        let expired = (try? await heldRequests.expireDue().count) ?? 0
        var signed = 0
        for request in (try? await heldRequests.dueForSigning()) ?? [] {
            var record = auditRecord(client: request.initiator, method: request.method)
            record.requestID = RequestIDs.next()
            record.heldRequest = request.id
            let start = clock.now
            let outcome = await signHeld(
                request, deadline: start.advanced(by: configuration.limits.requestTimeout), record: &record)
            record.duration = clock.now - start
            switch Self.answer(of: outcome) {
            case .success(let value):
                record.noteResult(value)
                signed += 1
            case .failure(let error): record.errorCode = error.code
            }
            if let audit { _ = await audit.append([record], requestID: record.requestID, at: Date()) }
        }
        return (expired, signed)
    }

    /// The call's own result of a signed held request: `signerkit_signActions` an array, `ronin_sponsorTransaction`
    /// the sponsored request, every other method its one result.
    static let heldResult: @Sendable (HeldRequest, SignedActions) -> JSONValue = { request, signed in
        let results = signed.results.map(JSONValue.string)
        switch request.method {
        case "signerkit_signActions": return .array(results)
        case "ronin_sponsorTransaction":
            guard let first = request.actions.first, let params = try? JSONValue(parsing: first.params),
                let transaction = params.arrayValue?.first,
                case .success(let sponsored) = sponsoredRequest(transaction, payerSignature: results[0])
            else { return results[0] }
            return sponsored
        default: return results.count == 1 ? results[0] : .array(results)
        }
    }

    /// A request id param: a string of at most 64 bytes (ids are `hr_` and 32 hex digits; anything longer is no
    /// id, and is not echoed back whole).
    static func heldRequestID(_ value: JSONValue) -> String? {
        guard case .string(let id) = value, !id.isEmpty, id.utf8.count <= 64 else { return nil }
        return id
    }

    /// Whether `client` may see `request`: its initiator, or an approver of one of its groups.
    static func maySee(_ request: HeldRequest, _ client: ServiceClient) -> Bool {
        request.initiator == client.name || (client.isApprover && !request.groups.isDisjoint(with: client.groups))
    }
}
