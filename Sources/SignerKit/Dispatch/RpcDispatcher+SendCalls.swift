import EthereumPrimitives

extension RpcDispatcher {
    /// EIP-5792's `wallet_sendCalls`: sends the calls of `request` from its account and returns the batch as
    /// the journal recorded it (its ``CallBatchRecord/id`` is what `wallet_getCallsStatus` takes).
    ///
    /// How the calls run is decided once per id, from the account's atomic capability on the chain
    /// (``capabilities(of:chains:deadline:)``), and recorded in the journal before anything is signed:
    /// - `supported`: one transaction from the account to itself calling its executor's ERC-7821 `execute`;
    /// - `ready` and `atomicRequired`: the same in a type-4 transaction that also carries the account's
    ///   authorization delegating to the allowed executor (signed by the key once the nonce is reserved);
    /// - otherwise, without `atomicRequired`: one transaction per call, in order, each sent once the previous one
    ///   is mined with status 1 (the dispatcher's dependent-action rule); with it:
    ///   ``CallBatchError/atomicityNotSupported(account:chain:)`` (EIP-5792's 5760), nothing sent.
    ///
    /// Every transaction goes through the dispatcher's own pipeline (policies — which judge each call of an
    /// atomic batch, and sum caps over the calls —, nonce reservation, journal before broadcast, receipts), and
    /// is journalled under the batch id: the same id again with the same calls re-sends what was journalled and
    /// never signs a call twice, and with other calls is ``CallBatchError/duplicateID(_:)`` (5720).
    ///
    /// The call returns once the batch's transactions are sent and followed as the configuration says
    /// (``DispatchConfiguration/confirmsTransactions``), within `deadline`. A failure after a transaction was
    /// broadcast is not an error here: the batch exists, and its status tells what happened.
    ///
    /// - Parameters:
    ///   - request: the batch; without an id, a new random one (32 bytes, 0x-hex) names it.
    ///   - deadline: the latest instant any wait may last (node calls, receipts).
    ///   - caller: who asks (a service's client name), as in ``prepare(actions:caller:admit:)``.
    ///   - admit: checked on each resolved transaction of the batch before routing and policies, as in
    ///     ``prepare(actions:caller:admit:)``.
    ///   - beforeSigning: called with the batch's resolved transactions once they passed every check and before
    ///     any is signed (a service writes its audit record here); a text it returns stops the batch as
    ///     ``CallBatchError/refused(_:)``.
    /// - Throws: ``CallBatchError``; nothing was broadcast when it throws.
    public func sendCalls(
        _ request: CallBatchRequest, deadline: ContinuousClock.Instant? = nil, caller: String? = nil,
        admit: (@Sendable (ResolvedRequest) -> String?)? = nil,
        beforeSigning: (@Sendable ([ResolvedRequest]) async -> String?)? = nil
    ) async throws(CallBatchError) -> CallBatchRecord {
        guard let journal = configuration.journal else { throw .noJournal }
        guard let chainId = request.chain.eip155ChainID, nodes[request.chain] != nil else {
            throw .unsupportedChain(request.chain.description)
        }
        guard !registrations(of: request.from).isEmpty else { throw .unknownAccount(request.from) }
        let id = request.id ?? CallBatchRequest.newID()
        let result = await CallerDeadline.within(deadline, on: configuration.clock) {
            () async -> Result<CallBatchRecord, CallBatchError> in
            do throws(CallBatchError) {
                let batch = try await self.claimBatch(id: id, request: request, chainId: chainId, journal: journal)
                try await self.run(
                    batch, request: request, deadline: deadline, caller: caller, admit: admit,
                    beforeSigning: beforeSigning)
                return .success(batch)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The batch recorded under `id`: the earlier one when `request` was already sent under it (a retry), else
    /// a new one decided from the account's capability now.
    private func claimBatch(id: String, request: CallBatchRequest, chainId: UInt256, journal: any TransactionJournal)
        async throws(CallBatchError) -> CallBatchRecord
    {
        let digest = request.digest
        func same(_ recorded: CallBatchRecord) throws(CallBatchError) -> CallBatchRecord {
            guard recorded.digest == digest else { throw .duplicateID(id) }
            return recorded
        }
        let known: CallBatchRecord?
        do { known = try await journal.callBatch(id: id) } catch { throw .journal(error) }
        if let known { return try same(known) }
        let route: AtomicRoute
        do { route = try await atomicRoute(of: request.from, on: request.chain, id: chainId) } catch {
            throw .node(error.description)
        }
        let execution: CallBatchRecord.Execution
        switch (route, request.atomicRequired) {
        case (.supported, _): execution = .atomic
        case (.smartAccount(let submitter), _): execution = .smartAccount(submitter: submitter)
        // An account is delegated only when the batch needs it: the caller asked for atomicity.
        case (.ready(let delegate), true): execution = .atomicDelegating(to: delegate)
        case (.ready, false), (.unsupported, false): execution = .sequential
        case (.unsupported, true): throw .atomicityNotSupported(account: request.from, chain: request.chain)
        }
        let batch = CallBatchRecord(
            id: id, digest: digest, chain: request.chain, account: request.from, callCount: request.calls.count,
            execution: execution)
        let claimed: CallBatchRecord
        do { claimed = try await journal.claimCallBatch(batch) } catch { throw .journal(error) }
        return try same(claimed)
    }

    /// Sends `batch`'s transactions through the dispatcher, journalled under the batch's key.
    private func run(
        _ batch: CallBatchRecord, request: CallBatchRequest, deadline: ContinuousClock.Instant?, caller: String?,
        admit: (@Sendable (ResolvedRequest) -> String?)?,
        beforeSigning: (@Sendable ([ResolvedRequest]) async -> String?)?
    ) async throws(CallBatchError) {
        let objects: [JSONValue]
        var judgedCalls: [Int: [ResolvedRequest]] = [:]
        let execute = ERC7821Batch.Call(to: request.from, data: ERC7821Batch(calls: request.calls).calldata)
        switch batch.execution {
        case .atomic, .atomicDelegating: objects = [request.transactionJSON(execute)]
        case .sequential: objects = request.calls.map { request.transactionJSON($0) }
        case .smartAccount(let submitter):
            // The calls, judged as the smart account's own (what its batch transaction runs) before its owners
            // sign anything.
            let asExecute = WalletRpcAction(
                chainId: batch.chain, method: .sendTransaction,
                params: JSONValue.array([request.transactionJSON(execute)]).serialized)
            do throws(DispatchError) {
                let judged = try RequestResolver.resolve(
                    asExecute, index: 0, node: nodes[batch.chain], previewer: configuration.previewer)
                try evaluatePolicies(judged, index: 0, method: RpcMethod.sendTransaction.rawValue)
                try evaluateBatchPolicies([judged])
                judgedCalls[0] = judged.calls
            } catch {
                throw .dispatch(error)
            }
            objects = [try await smartAccountTransaction(for: batch, request: request, submitter: submitter)]
        }
        let actions = objects.map {
            WalletRpcAction(chainId: batch.chain, method: .sendTransaction, params: JSONValue.array([$0]).serialized)
        }
        var prepared: PreparedActions
        do throws(DispatchError) {
            prepared = try await prepare(actions: actions, caller: caller, admit: admit, judgedCalls: judgedCalls)
            if case .atomicDelegating(let delegate) = batch.execution {
                guard let policy = delegationPolicy(for: batch, delegate: delegate) else {
                    throw DispatchError(
                        index: 0, method: RpcMethod.sendTransaction.rawValue,
                        kind: .policyViolation(
                            policy: "AllowedDelegates",
                            reason: "delegate \(delegate.checksummed) is no longer allowed to execute this batch"))
                }
                prepared.prepared[0].request.selfDelegation = SelfDelegation(delegate: delegate, policy: policy)
            }
        } catch {
            throw .dispatch(error)
        }
        if let refusal = await beforeSigning?(prepared.requests) { throw .refused(refusal) }
        do throws(DispatchError) {
            _ = try await sign(prepared, idempotencyKey: batch.journalKey, deadline: deadline)
        } catch {
            // Sent, then failed (reverted, dropped, a later call refused): the status tells the rest.
            guard error.broadcast.isEmpty else { return }
            throw .dispatch(error)
        }
    }

    /// The `eth_sendTransaction` object of a smart account's batch: the one journalled for it when there is one
    /// (a retry answers with the transaction already sent, whatever the account's state since), else the one the
    /// account's backend builds now.
    private func smartAccountTransaction(for batch: CallBatchRecord, request: CallBatchRequest, submitter: Address)
        async throws(CallBatchError) -> JSONValue
    {
        guard let chainId = batch.chain.eip155ChainID, let node = nodes[batch.chain] else {
            throw .unsupportedChain(batch.chain.description)
        }
        if let journal = configuration.journal {
            let entry: JournalEntry?
            do { entry = try await journal.entry(for: batch.transactionIdentity(0), includingReported: true) } catch {
                throw .journal(error)
            }
            if let entry, let sent = try? SignedTransaction.decode(raw: entry.rawTransaction).transaction,
                let to = sent.to
            {
                return request.transactionJSON(
                    ERC7821Batch.Call(to: to, value: sent.value, data: sent.data), from: submitter)
            }
        }
        guard let account = atomicBatchAccount(for: batch.account, chain: batch.chain) else {
            throw .unknownAccount(batch.account)
        }
        let transaction: TransactionRequest
        do {
            transaction = try await account.batchTransaction(
                request.calls, account: batch.account, chainId: chainId, node: node)
        } catch {
            throw .dispatch(DispatchError(index: 0, method: RpcMethod.sendTransaction.rawValue, kind: .backend(error)))
        }
        guard transaction.from == submitter, let to = transaction.to else {
            throw .refused("the smart account's backend built a transaction that is not its submitter's call")
        }
        return request.transactionJSON(
            ERC7821Batch.Call(to: to, value: transaction.value, data: transaction.data), from: submitter)
    }

    /// The policy the delegation of `batch` is signed under: the dispatcher's ``AllowedDelegates`` when it still
    /// allows `delegate` on the chain (all of them must), else `nil`.
    private func delegationPolicy(for batch: CallBatchRecord, delegate: Address) -> AllowedDelegates? {
        let policies = policies.compactMap { $0 as? AllowedDelegates }
        guard let chainId = batch.chain.eip155ChainID, let policy = policies.first,
            policies.allSatisfy({ $0.allows(delegate, chainId: chainId) })
        else { return nil }
        return policy
    }
}
