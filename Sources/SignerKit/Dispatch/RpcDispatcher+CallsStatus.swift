import EthereumPrimitives

extension RpcDispatcher {
    /// EIP-5792's `wallet_getCallsStatus`: the batch recorded under `id` in the journal, its transactions' receipts
    /// from the chain's node, and the status they add up to:
    /// - `100` pending while a journalled transaction has no receipt;
    /// - `200` confirmed when every transaction of the batch is mined with status 1;
    /// - `400` off-chain failure when none was sent (or the node refused it);
    /// - `500` reverted when every mined transaction reverted;
    /// - `600` partially reverted when some took effect and the batch did not complete.
    ///
    /// - Throws: ``CallBatchError/unknownBatch(_:)`` (5730) when no batch has this id; `.journal` or `.node`
    ///   when the journal or the node did not answer (never a guess), `.noJournal` without a journal.
    public func callsStatus(id: String, deadline: ContinuousClock.Instant? = nil) async throws(CallBatchError)
        -> CallBatchStatus
    {
        guard let journal = configuration.journal else { throw .noJournal }
        let found: CallBatchRecord?
        do { found = try await journal.callBatch(id: id) } catch { throw .journal(error) }
        guard let batch = found else { throw .unknownBatch(id) }
        guard let node = nodes[batch.chain] else { throw .unsupportedChain(batch.chain.description) }
        let result = await CallerDeadline.within(deadline, on: configuration.clock) {
            () async -> Result<CallBatchStatus, CallBatchError> in
            do throws(CallBatchError) {
                return .success(try await Self.status(of: batch, journal: journal, node: node))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads the batch's journalled transactions in order (stopping at the first never journalled) and their
    /// receipts.
    private static func status(of batch: CallBatchRecord, journal: any TransactionJournal, node: any EthereumNode)
        async throws(CallBatchError) -> CallBatchStatus
    {
        var receipts: [CallBatchReceipt?] = []
        for index in 0..<batch.transactionCount {
            let entry: JournalEntry?
            do { entry = try await journal.entry(for: batch.transactionIdentity(index), includingReported: true) } catch
            {
                throw .journal(error)
            }
            guard let entry else { break }
            do throws(NodeError) {
                let answer = try await node.call(method: "eth_getTransactionReceipt", params: [.string(entry.hash.hex)])
                switch answer {
                case .null: receipts.append(nil)
                case .object(let object): receipts.append(try CallBatchReceipt(json: object))
                default:
                    throw NodeResponseReader(method: "eth_getTransactionReceipt").fail(
                        "result: expected an object or null, got \(answer.kindName)")
                }
            } catch {
                throw .node(error.description)
            }
        }
        return CallBatchStatus(
            batch: batch, code: CallBatchStatus.code(of: batch, receipts: receipts),
            receipts: receipts.compactMap { $0 })
    }
}
