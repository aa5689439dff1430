import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKit
import SignerKitSupport

extension SignerService {
    /// The signing methods and the wallet RPC method each becomes.
    static let signingMethods: [String: RpcMethod] = [
        "personal_sign": .personalSign, "eth_signTypedData_v4": .signTypedDataV4, "eth_signTypedData": .signTypedDataV4,
        "eth_signTransaction": .signTransaction, "eth_sendTransaction": .sendTransaction,
        "ronin_sponsorTransaction": .sponsorTransaction,
    ]

    /// Runs one call for `client`, ending by `deadline`.
    func perform(
        _ call: ServiceCall, client: ServiceClient, requestKey: RequestKey?, deadline: ContinuousClock.Instant,
        record: inout CallRecord
    ) async -> Result<JSONValue, JSONRPCError> {
        if let allowed = client.methods, !allowed.contains(call.method) {
            return .failure(.forbidden("client \(client.name) may not call \(EchoedText.abbreviated(call.method))"))
        }
        switch call.method {
        case "eth_accounts":
            let visible = accounts.filter { client.accounts?.contains($0) ?? true }
            return .success(.array(visible.map { .string($0.checksummed) }))
        case "eth_chainId":
            guard let chain = configuration.defaultChain, let id = chain.eip155ChainID else {
                return .failure(.methodNotFound(call.method, "no chainId is configured"))
            }
            return .success(.string(id.hexQuantity))
        case "eth_sign":
            guard configuration.enablesEthSign else {
                return .failure(.methodNotFound(call.method, "eth_sign is disabled (enableEthSign)"))
            }
            // geth's eth_sign: [address, data], EIP-191 over the data — personal_sign with its params swapped.
            guard call.params.count == 2 else { return .failure(.invalidParams("expected [address, data]")) }
            return await sign(
                method: .personalSign, params: [call.params[1], call.params[0]], client: client, deadline: deadline,
                requestKey: requestKey, record: &record)
        case "signerkit_signActions":
            return await signActions(call, client: client, deadline: deadline, requestKey: requestKey, record: &record)
        case "signerkit_preview":
            return preview(call, client: client, record: &record)
        case "signerkit_requestStatus":
            return await requestStatus(call, client: client, deadline: deadline)
        case "signerkit_approve":
            return await approve(call, client: client, deadline: deadline, record: &record)
        case "signerkit_reject":
            return await reject(call, client: client, record: &record)
        case "signerkit_heldRequests":
            return await heldRequestList(call, client: client)
        case "signerkit_receipt":
            return await receipt(call, client: client)
        case "wallet_getCapabilities":
            return await capabilities(call, client: client, deadline: deadline)
        case "wallet_sendCalls":
            return await sendCalls(call, client: client, requestKey: requestKey, deadline: deadline, record: &record)
        case "wallet_getCallsStatus":
            return await callsStatus(call, client: client, deadline: deadline)
        case "wallet_showCallsStatus":
            // EIP-1193's 4200: a signer service has no screen to show a batch on.
            return .failure(
                JSONRPCError(
                    code: 4200,
                    message: "wallet_showCallsStatus is unsupported: a signer service has no user interface; "
                        + "ask wallet_getCallsStatus"))
        default:
            if let method = Self.signingMethods[call.method] {
                return await sign(
                    method: method, params: call.params, client: client, deadline: deadline, requestKey: requestKey,
                    record: &record)
            }
            if configuration.passThrough.contains(call.method) { return await proxy(call, client: client) }
            return .failure(.methodNotFound(call.method))
        }
    }

    /// One signing method as a one-action batch on the chain its params name (else the default chain).
    func sign(
        method: RpcMethod, params: [JSONValue], client: ServiceClient, deadline: ContinuousClock.Instant,
        requestKey: RequestKey?, record: inout CallRecord
    ) async -> Result<JSONValue, JSONRPCError> {
        let chain: ChainID
        switch ServiceChains.chain(of: method, params: params, default: configuration.defaultChain) {
        case .success(let found): chain = found
        case .failure(let error): return .failure(error)
        }
        let action = WalletRpcAction(chainId: chain, method: method, params: JSONValue.array(params).serialized)
        let result = await signed(
            [action], client: client, deadline: deadline, journalKey: requestKey?.journalKey, record: &record
        ).map { results in results[0] }
        // A held sponsorship signed on approval answers with the sponsored request already.
        guard method == .sponsorTransaction, case .success(let signature) = result, case .string = signature else {
            return result
        }
        return Self.sponsoredRequest(params[0], payerSignature: signature)
    }

    /// `ronin_sponsorTransaction`'s answer: the sender's request with `payerV`, `payerR`, `payerS` added, as
    /// `signerkit tx sponsor` prints it (the dispatcher already verified the signature over this request).
    static func sponsoredRequest(_ request: JSONValue, payerSignature: JSONValue) -> Result<JSONValue, JSONRPCError> {
        guard case .string(let text) = payerSignature, let signature = try? RecoverableSignature(hex: text),
            var sponsored = try? TransactionRequest(json: request)
        else {
            return .failure(
                .init(
                    code: JSONRPCError.signingFailedCode,
                    message: "the payer's signature could not be added to the request"))
        }
        sponsored.payerSignature = signature
        return .success(sponsored.json)
    }

    /// `signerkit_signActions`: `[[actions…]]` or `{"actions": […], "idempotencyKey"?: K}` → the results in order.
    ///
    /// With an `idempotencyKey`, a retry with the same actions gets the first answer back (from the
    /// idempotency store) or, when the first did not complete, re-sends its journalled transactions.
    func signActions(
        _ call: ServiceCall, client: ServiceClient, deadline: ContinuousClock.Instant, requestKey: RequestKey?,
        record: inout CallRecord
    ) async -> Result<JSONValue, JSONRPCError> {
        let actions: [WalletRpcAction]
        let idempotencyKey: String?
        switch ServiceActions.read(call) {
        case .success(let read): (actions, idempotencyKey) = read
        case .failure(let error): return .failure(error)
        }
        guard let idempotencyKey, !idempotencyKey.isEmpty else {
            return await signed(
                actions, client: client, deadline: deadline, journalKey: requestKey?.journalKey, record: &record
            ).map { .array($0) }
        }
        let key = ActionsKey(client: client.name, key: idempotencyKey, actions: actions)
        return await once(key, client: client, record: &record) { (record: inout CallRecord) in
            await self.signed(
                actions, client: client, deadline: deadline, journalKey: key.journalKey, record: &record
            ).map { .array($0) }
        }
    }

    /// `signerkit_preview`: the same params as `signerkit_signActions` → one preview per action.
    func preview(_ call: ServiceCall, client: ServiceClient, record: inout CallRecord) -> Result<
        JSONValue, JSONRPCError
    > {
        switch ServiceActions.read(call) {
        case .failure(let error): return .failure(error)
        case .success(let (actions, _)):
            switch previews(actions, client: client, record: &record) {
            case .failure(let error): return .failure(error)
            case .success(let previews): return .success(.array(previews.map(\.json)))
            }
        }
    }

    /// Previews `actions` and checks each against what `client` may do.
    func previews(_ actions: [WalletRpcAction], client: ServiceClient, record: inout CallRecord)
        -> Result<[SigningPreview], JSONRPCError>
    {
        let previews: [SigningPreview]
        do { previews = try dispatcher.preview(actions: actions) } catch { return .failure(.dispatch(error)) }
        record.note(previews)
        for preview in previews {
            if let refusal = Self.refusal(
                of: client, account: preview.account, chain: preview.chain, method: preview.method,
                calledAs: record.method)
            {
                return .failure(.forbidden("action[\(preview.index)]: \(refusal)"))
            }
        }
        return .success(previews)
    }

    /// Why `client` may not sign with `account` on `chain` with `method`, or nil when it may. `calledAs` is the
    /// JSON-RPC method the client called: geth's `eth_sign` is served as `personal_sign`, and a client allowed
    /// `eth_sign` may use it without being allowed `personal_sign` too.
    static func refusal(
        of client: ServiceClient, account: Address, chain: ChainID, method: RpcMethod, calledAs: String
    ) -> String? {
        if let refusal = refusal(of: client, chain: chain) { return refusal }
        if let allowed = client.accounts, !allowed.contains(account) {
            return "client \(client.name) may not sign with \(account)"
        }
        let name = calledAs == "eth_sign" && method == .personalSign ? calledAs : method.rawValue
        if let methods = client.methods, !methods.contains(name) {
            return "client \(client.name) may not call \(name)"
        }
        return nil
    }

    /// Checks, then signs `actions` as one batch: the results in order, or one error. The client's rights
    /// are checked on each resolved action before the dispatcher's own checks, which resolve it only once.
    func signed(
        _ actions: [WalletRpcAction], client: ServiceClient, deadline: ContinuousClock.Instant, journalKey: String?,
        record: inout CallRecord
    ) async -> Result<[JSONValue], JSONRPCError> {
        let dispatcher = self.dispatcher
        let calledAs = record.method
        await noteForReplay(actions, client: client, record: &record)
        let prepared: PreparedActions
        do {
            prepared = try await dispatcher.prepare(actions: actions, caller: client.name) { request in
                Self.refusal(
                    of: client, account: request.account, chain: request.action.chainId, method: request.method,
                    calledAs: calledAs)
            }
        } catch {
            // What the refused batch was (for the audit record); nothing is signed.
            if let previews = try? dispatcher.preview(actions: actions) { record.note(previews) }
            return .failure(.dispatch(error))
        }
        let requests = prepared.requests
        record.note(requests)
        if !prepared.approvalRequirements.isEmpty {
            return await hold(prepared, client: client, journalKey: journalKey, record: &record)
        }
        let broadcasts = requests.contains { $0.method == .sendTransaction }
        if broadcasts, let audit, await !Self.writeIntent(record, to: audit) { return .failure(.auditUnavailable) }
        // Without a key a call that sends is a payment of its own: its transactions are journalled under an
        // identity no other request has (identical keyless payments, on any instance, are two payments).
        let journalKey = broadcasts ? journalKey ?? IdempotencyNames.uniqueCall() : journalKey
        do {
            let signed = try await dispatcher.sign(prepared, idempotencyKey: journalKey, deadline: deadline)
            record.backends = prepared.backendNames
            return .success(signed.results.map(JSONValue.string))
        } catch {
            // A limit over time that holds instead of refusing, found exceeded as the action was charged:
            // held like any call a rule holds (nothing of it was sent).
            if case .approvalRequired(let requirements) = error.kind, error.broadcast.isEmpty {
                return await hold(
                    prepared.requiring(requirements), client: client, journalKey: journalKey, record: &record)
            }
            return .failure(.dispatch(error))
        }
    }

    /// Writes `record` to `audit` as the intent record of a call that may broadcast (before anything is signed);
    /// whether it is on the trail (nothing may be signed otherwise).
    static func writeIntent(_ record: CallRecord, to audit: any AuditTrail) async -> Bool {
        var intent = record
        intent.intent = true
        guard await audit.append([intent], requestID: record.requestID, at: Date()) else { return false }
        CrashPoint.reached(.auditIntent)
        return true
    }

    /// Why `client` may not use `chain` (its `chains`), or nil when it may.
    static func refusal(of client: ServiceClient, chain: ChainID) -> String? {
        guard let chains = client.chains, !chains.contains(chain) else { return nil }
        return "client \(client.name) may not use \(chain)"
    }

    /// Passes a call to the default chain's upstream node (when `client` may use that chain); its JSON-RPC
    /// errors keep their code.
    func proxy(_ call: ServiceCall, client: ServiceClient) async -> Result<JSONValue, JSONRPCError> {
        guard let chain = configuration.defaultChain, let node = upstream[chain] else {
            return .failure(.methodNotFound(call.method, "no upstream node is configured"))
        }
        if let refusal = Self.refusal(of: client, chain: chain) { return .failure(.forbidden(refusal)) }
        do { return .success(try await node.call(method: call.method, params: call.params)) } catch {
            if case .rpc(let code, let message, _) = error {
                return .failure(
                    JSONRPCError(code: code, message: EchoedText.abbreviated(message, limit: NodeError.messageLimit)))
            }
            return .failure(.upstream("\(error)"))
        }
    }
}
