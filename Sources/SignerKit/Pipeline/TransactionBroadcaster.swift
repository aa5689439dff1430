import EthereumPrimitives
import EthereumTransactions
import SignerKitSupport

/// Sends transactions so that none is ever lost or doubled: journalled before it is sent, its hash listed
/// as broadcast before the node is asked, and a send whose answer is lost resolved by asking the node
/// about the hash SignerKit already knows, never by signing again.
enum TransactionBroadcaster {
    /// Journals `signed` (when the batch has a journal), lists it as broadcast, and sends it.
    ///
    /// - Throws: ``DispatchError/Kind/journalFailure(_:)`` when it could not be journalled (nothing was
    ///   sent); ``DispatchError/Kind/backend(_:)`` with the ``NodeError`` when the node refused it (and does not
    ///   know it: it is no longer listed) or when the outcome is unknown (it stays listed, and journalled as
    ///   unresolved).
    static func broadcast(
        _ signed: SignedTransaction, for request: ResolvedRequest, in batch: BatchContext, node: any EthereumNode
    ) async throws(DispatchError.Kind) -> Bytes32 {
        let hash = signed.hash
        let journal = batch.journal
        if let journal, let identity = batch.identities[request.index] {
            let entry = JournalEntry(
                identity: identity, chain: request.action.chainId, account: request.account,
                nonce: signed.transaction.nonce, hash: hash, rawTransaction: signed.rawTransaction)
            do { try await journal.record(entry) } catch {
                throw .journalFailure(error.description)
            }
            batch.noteJournalled(at: request.index)
            CrashPoint.reached(.journalled)
        }
        batch.noteBroadcast(hash, at: request.index)
        let raw = signed.rawTransaction
        let answer: Result<Bytes32, NodeError> = await NodeCall.shielded { () async -> Result<Bytes32, NodeError> in
            do throws(NodeError) { return .success(try await node.sendRawTransaction(raw)) } catch {
                return .failure(error)
            }
        }
        switch answer {
        case .success(let answered):
            CrashPoint.reached(.broadcast)
            guard answered == hash else {
                throw .verificationFailed(
                    "the node answered hash \(answered) for the transaction whose hash is \(hash)")
            }
            return hash
        case .failure(let error):
            // Ask what happened before deciding anything.
            if await isKnown(hash, by: node) { return hash }
            if case .rpc = error {
                // A definite refusal of a transaction the node does not know: it is not on its way.
                batch.forgetBroadcast(at: request.index)
                try? await journal?.resolve([hash], as: .rejected)
                throw .backend(.underlying("the node refused the transaction", error: error))
            }
            throw .backend(.underlying("outcome unknown, transaction \(hash) may be on its way", error: error))
        }
    }

    /// Answers an action from its unresolved journal entry: by the receipt when the transaction is mined,
    /// else by re-sending the *same* raw transaction.
    ///
    /// - Throws: ``DispatchError/Kind/transactionNotMined(_:)`` (wrapped) when the node refuses it and its nonce is
    ///   already taken by another transaction (it can never be mined; the entry is resolved as rejected), or
    ///   ``DispatchError/Kind/backend(_:)`` with the node's error (the entry stays unresolved).
    static func replay(
        _ entry: JournalEntry, journal: any TransactionJournal, node: any EthereumNode
    ) async throws(DispatchError.Kind) -> Bytes32 {
        let hash = entry.hash
        if case .success(.some) = await receipt(hash, from: node) { return hash }
        let raw = entry.rawTransaction
        let answer: Result<Bytes32, NodeError> = await NodeCall.shielded { () async -> Result<Bytes32, NodeError> in
            do throws(NodeError) { return .success(try await node.sendRawTransaction(raw)) } catch {
                return .failure(error)
            }
        }
        switch answer {
        case .success: return hash
        case .failure(let error):
            if await isKnown(hash, by: node) { return hash }
            if case .rpc = error, await nonceTaken(entry, node: node) {
                try? await journal.resolve([hash], as: .rejected)
                throw .transactionNotMined(hash)
            }
            throw .backend(.underlying("re-sending the journalled transaction \(hash)", error: error))
        }
    }

    /// Follows `hash` to its receipt until `deadline`: it must be mined, by `account`, with status 1.
    ///
    /// Transport errors and node errors while polling count as "no receipt yet" until the deadline; a receipt
    /// that cannot be read fails at once.
    static func confirm(
        _ hash: Bytes32, account: Address, node: any EthereumNode, deadline: ContinuousClock.Instant,
        pollInterval: Duration, clock: any SignerClock
    ) async throws(DispatchError.Kind) {
        while true {
            let answer = await receipt(hash, from: node)
            if case .failure(let error) = answer, case .invalidResponse = error {
                // A receipt the node cannot give in a readable form will not become readable by waiting.
                throw .backend(.underlying("reading the receipt of \(hash)", error: error))
            }
            if case .success(let found?) = answer {
                guard found.transactionHash == hash, found.from == account else {
                    throw .verificationFailed(
                        "the receipt for \(hash) is of transaction \(found.transactionHash) from \(found.from.checksummed)"
                    )
                }
                guard found.succeeded else { throw .transactionReverted(hash) }
                return
            }
            let now = clock.now
            guard now < deadline else { throw .transactionNotMined(hash) }
            do {
                try await clock.sleep(until: min(now.advanced(by: max(pollInterval, .milliseconds(1))), deadline))
            } catch {
                throw .cancelled
            }
        }
    }

    private static func receipt(_ hash: Bytes32, from node: any EthereumNode) async -> Result<
        TransactionReceipt?, NodeError
    > {
        await NodeCall.shielded { () async -> Result<TransactionReceipt?, NodeError> in
            do throws(NodeError) { return .success(try await node.transactionReceipt(hash)) } catch {
                return .failure(error)
            }
        }
    }

    /// Whether the node knows the transaction (pending or mined).
    static func isKnown(_ hash: Bytes32, by node: any EthereumNode) async -> Bool {
        await NodeCall.shielded { () async -> Bool in
            do throws(NodeError) { return try await node.transactionByHash(hash) != nil } catch { return false }
        }
    }

    /// Whether the account's mined nonce is past the entry's: another transaction took its nonce.
    private static func nonceTaken(_ entry: JournalEntry, node: any EthereumNode) async -> Bool {
        let account = entry.account
        return await NodeCall.shielded { () async -> Bool in
            do throws(NodeError) {
                return try await node.transactionCount(of: account, block: .latest) > entry.nonce
            } catch {
                return false
            }
        }
    }
}
