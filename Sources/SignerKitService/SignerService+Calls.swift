import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitSupport
import Synchronization

extension SignerService {
    /// EIP-5792's `wallet_sendCalls`: `[{version, id?, from, chainId, atomicRequired, calls, capabilities?}]` →
    /// `{"id": …}`, through ``RpcDispatcher/sendCalls(_:deadline:caller:admit:beforeSigning:)``.
    ///
    /// The client must be allowed the method, the account (`accounts`) and the chain (`chains`); its
    /// transactions are audited like any that broadcast (an intent record before signing). Batch ids belong to
    /// the client: another client's batch with the same id is another batch, and invisible to it. A request
    /// without an `id` sent with an `Idempotency-Key` gets an id derived from the key (and the call's position),
    /// so its retry is the same batch; without either, a new random id.
    func sendCalls(
        _ call: ServiceCall, client: ServiceClient, requestKey: RequestKey?, deadline: ContinuousClock.Instant,
        record: inout CallRecord
    ) async -> Result<JSONValue, JSONRPCError> {
        guard call.params.count == 1 else { return .failure(.invalidParams("expected [{…calls…}]")) }
        let parsed: CallBatchRequest
        do { parsed = try CallBatchRequest(json: call.params[0]) } catch { return .failure(Self.rpcError(error)) }
        if let refusal = Self.refusal(of: client, chain: parsed.chain) { return .failure(.forbidden(refusal)) }
        if let allowed = client.accounts, !allowed.contains(parsed.from) {
            return .failure(.forbidden("client \(client.name) may not sign with \(parsed.from)"))
        }
        let id =
            parsed.id ?? requestKey.map { ActionIdentity.digest(of: ["wallet_sendCalls", $0.journalKey]).hex }
            ?? CallBatchRequest.newID()
        let request: CallBatchRequest
        do {
            request = try CallBatchRequest(
                id: Self.scopedCallsID(id, client: client), from: parsed.from, chain: parsed.chain,
                atomicRequired: parsed.atomicRequired, calls: parsed.calls)
        } catch {
            return .failure(Self.rpcError(error))
        }
        await noteForReplay(request.callActions, client: client, record: &record)
        let seen = Mutex<[ResolvedRequest]>([])
        let auditFailed = Mutex(false)
        let intent = record
        let audit = self.audit
        let result: Result<CallBatchRecord, CallBatchError>
        do {
            result = .success(
                try await dispatcher.sendCalls(
                    request, deadline: deadline, caller: client.name,
                    admit: { resolved in
                        Self.refusal(
                            of: client, account: resolved.account, chain: resolved.action.chainId,
                            method: resolved.method, calledAs: "wallet_sendCalls")
                    },
                    beforeSigning: { requests in
                        seen.withLock { $0 = requests }
                        guard let audit else { return nil }
                        var written = intent
                        written.note(requests)
                        guard await Self.writeIntent(written, to: audit) else {
                            auditFailed.withLock { $0 = true }
                            return "the audit trail could not be written"
                        }
                        return nil
                    }))
        } catch {
            result = .failure(error)
        }
        record.note(seen.withLock { $0 })
        switch result {
        case .success: return .success(.object(JSONObject(["id": .string(id)])))
        case .failure(let error):
            if auditFailed.withLock({ $0 }) { return .failure(.auditUnavailable) }
            return .failure(Self.rpcError(error))
        }
    }

    /// `wallet_getCallsStatus`: `[id]` → EIP-5792's status object of the client's batch `id`.
    func callsStatus(_ call: ServiceCall, client: ServiceClient, deadline: ContinuousClock.Instant) async -> Result<
        JSONValue, JSONRPCError
    > {
        guard call.params.count == 1, case .string(let id) = call.params[0], !id.isEmpty else {
            return .failure(.invalidParams("expected [batch id]"))
        }
        do {
            let status = try await dispatcher.callsStatus(
                id: Self.scopedCallsID(id, client: client), deadline: deadline)
            return .success(status.json(id: id))
        } catch {
            if case .unknownBatch = error { return .failure(Self.rpcError(.unknownBatch(id))) }
            return .failure(Self.rpcError(error))
        }
    }

    /// The JSON-RPC error of a batch failure: a dispatcher failure as any signing call's, the rest with
    /// EIP-5792's codes.
    static func rpcError(_ error: CallBatchError) -> JSONRPCError {
        if case .dispatch(let failure) = error, case .approvalRequired(let requirements) = failure.kind {
            // A batch id is not a held request: refused, so nothing waits on an approval that cannot come.
            return JSONRPCError(
                code: JSONRPCError.policyRefusedCode,
                message: "rule \(requirements.map(\.rule).joined(separator: ", ")) holds these calls for approval, "
                    + "which wallet_sendCalls cannot wait for: send them with eth_sendTransaction or "
                    + "signerkit_signActions to be held")
        }
        if case .dispatch(let failure) = error { return .dispatch(failure) }
        return JSONRPCError(code: error.code, message: error.description)
    }

    /// The journal id of `client`'s batch `id`: one client's ids never name another's batches.
    static func scopedCallsID(_ id: String, client: ServiceClient) -> String {
        ActionIdentity.digest(of: ["signerkit.service.calls.v1", client.name, id]).hex
    }
}
