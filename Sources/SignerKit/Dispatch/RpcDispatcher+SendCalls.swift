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
    ///   - admit: checked on each resolved transaction of the batch before routing and policies, as in
    ///     ``prepare(actions:admit:)``.
    ///   - beforeSigning: called with the batch's resolved transactions once they passed every check and before
    ///     any is signed (a service writes its audit record here); a text it returns stops the batch as
    ///     ``CallBatchError/refused(_:)``.
    /// - Throws: ``CallBatchError``; nothing was broadcast when it throws.
    public func sendCalls(
        _ request: CallBatchRequest, deadline: ContinuousClock.Instant? = nil,
        admit: (@Sendable (ResolvedRequest) -> String?)? = nil,
        beforeSigning: (@Sendable ([ResolvedRequest]) async -> String?)? = nil
    ) async throws(CallBatchError) -> CallBatchRecord {
        guard let journal = configuration.journal else { throw .noJournal }
        guard let chainId = request.chain.eip155ChainID, nodes[request.chain] != nil else {
            throw .unsupportedChain(request.chain.description)
        }
        guard backend(for: request.from, chain: request.chain, method: .sendTransaction) != nil else {
            throw .unknownAccount(request.from)
        }
        let id = request.id ?? CallBatchRequest.newID()
        let result = await CallerDeadline.within(deadline, on: configuration.clock) {
            () async -> Result<CallBatchRecord, CallBatchError> in
            do throws(CallBatchError) {
                let batch = try await self.claimBatch(id: id, request: request, chainId: chainId, journal: journal)
                try await self.run(
                    batch, request: request, deadline: deadline, admit: admit, beforeSigning: beforeSigning)
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
        _ batch: CallBatchRecord, request: CallBatchRequest, deadline: ContinuousClock.Instant?,
        admit: (@Sendable (ResolvedRequest) -> String?)?,
        beforeSigning: (@Sendable ([ResolvedRequest]) async -> String?)?
    ) async throws(CallBatchError) {
        let objects: [JSONValue]
        if batch.isAtomic {
            let execute = ERC7821Batch.Call(to: request.from, data: ERC7821Batch(calls: request.calls).calldata)
            objects = [request.transactionJSON(execute)]
        } else {
            objects = request.calls.map(request.transactionJSON)
        }
        let actions = objects.map {
            WalletRpcAction(chainId: batch.chain, method: .sendTransaction, params: JSONValue.array([$0]).serialized)
        }
        var prepared: PreparedActions
        do throws(DispatchError) {
            prepared = try await prepare(actions: actions, admit: admit)
            if let delegate = batch.delegate {
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
