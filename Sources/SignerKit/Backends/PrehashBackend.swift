import EthereumPrimitives
import EthereumTransactions
import SignerKitSupport

/// Turns any ``PrehashSigner`` into a whole-method backend: SignerKit does all Ethereum encoding and
/// hashing, the key only signs 32-byte digests. Registered by ``RpcDispatcher/register(_:chains:methods:)``.
///
/// Transactions are filled from the node (nonce: never below one this batch or the journal already used),
/// judged by the dispatcher's ``FilledTransactionPolicy`` policies, signed, and for `eth_sendTransaction`
/// verified (sender and fields), journalled and broadcast; the dispatcher then follows the receipt.
public struct PrehashBackend: WalletRpcSigner {
    /// The key.
    public let key: any PrehashSigner
    /// Chains it signs on (`nil`: every eip155 chain).
    public let chains: Set<ChainID>?
    /// Methods it handles.
    public let methods: Set<RpcMethod>
    /// `PrehashBackend(<key type>)` (worked out once: the service counts signatures by backend name).
    public let name: String

    /// Wraps `key`.
    public init(
        _ key: any PrehashSigner, chains: Set<ChainID>? = nil, methods: Set<RpcMethod> = Set(RpcMethod.allCases)
    ) {
        self.key = key
        self.chains = chains
        self.methods = methods
        name = "PrehashBackend(\(type(of: key)))"
    }

    /// The key's address.
    public var accounts: [Address] { [key.address] }

    /// Signs (and for `eth_sendTransaction` broadcasts) one request.
    public func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        guard request.account == key.address else {
            throw .invalidRequest("account \(request.account) is not this key's address \(key.address)")
        }
        switch request.payload {
        case .personalMessage(_, let digest):
            return .signature(try await key.sign(prehash: digest))
        case .typedData(_, let hashes):
            return .signature(try await key.sign(prehash: hashes.digest))
        case .transaction(let transactionRequest, let feesOpen):
            return try await handleTransaction(transactionRequest, feesOpen: feesOpen, request: request)
        }
    }

    private func handleTransaction(
        _ transactionRequest: TransactionRequest, feesOpen: Bool, request: ResolvedRequest
    ) async throws(SignerError) -> ActionResult {
        let lane = NonceLane(account: request.account, chain: request.action.chainId)
        let account = request.account
        let node = request.node
        let floor = nonceFloor(for: transactionRequest, lane: lane, batch: request.batch)
        var filled = try await NodeCall.shielded { () async throws(SignerError) -> TransactionRequest in
            try await TransactionFiller.fill(
                transactionRequest, feesOpen: feesOpen, from: account, node: node, nonceFloor: floor)
        }
        CrashPoint.reached(.filled)
        // A node-filled nonce is reserved in the journal, so signers sharing it never pick the same one.
        var reservation: NonceReservation?
        if transactionRequest.nonce == nil, let journal = request.batch?.journal, let proposed = filled.nonce {
            let nonce: UInt256
            do {
                nonce = try await journal.reserveNonce(
                    chain: lane.chain, account: account, atLeast: proposed,
                    lease: request.batch?.nonceReservationLease ?? .seconds(120))
            } catch {
                throw .underlying("transaction journal", error: error)
            }
            filled.nonce = nonce
            reservation = NonceReservation(journal: journal, lane: lane, nonce: nonce)
            CrashPoint.reached(.reserved)
        }
        do {
            return try await signFilled(
                filled, transactionRequest: transactionRequest, feesOpen: feesOpen, lane: lane, request: request)
        } catch {
            // Nothing was recorded with the nonce (a recorded entry ends its reservation itself).
            if let reservation, request.batch?.isJournalled(at: request.index) != true { await reservation.release() }
            throw error
        }
    }

    /// Signs a filled transaction; for `eth_sendTransaction` verifies, journals and broadcasts it.
    private func signFilled(
        _ filled: TransactionRequest, transactionRequest: TransactionRequest, feesOpen: Bool, lane: NonceLane,
        request: ResolvedRequest
    ) async throws(SignerError) -> ActionResult {
        let transaction: Transaction
        do { transaction = try filled.complete(chainId: request.chainId) } catch {
            throw .invalidRequest("transaction: \(error)")
        }
        for policy in request.batch?.filledTransactionPolicies ?? [] {
            if case .fail(let reason) = policy.evaluate(filled: transaction, for: request) {
                throw .policyViolation(policy: policy.name, reason: reason)
            }
        }
        let signed = try await key.signTransaction(transaction)
        CrashPoint.reached(.signed)
        request.batch?.noteNonce(transaction.nonce, in: lane)
        // eth_signTransaction: the dispatcher verifies the raw transaction like any backend's.
        guard request.method == .sendTransaction else { return .rawTransaction(signed.rawTransaction) }
        guard let node = request.node else {
            throw .invalidRequest("eth_sendTransaction needs a node for \(request.action.chainId)")
        }
        // Nothing SignerKit did not verify is broadcast.
        do { try ResultVerifier.verify(signed, matches: transactionRequest, feesOpen: feesOpen, for: request) } catch {
            throw .verificationFailed(error.description)
        }
        CrashPoint.reached(.verified)
        // Another action of the batch failed while this one was being filled and signed: do not broadcast.
        guard !Task.isCancelled else { throw .backendFailure("not broadcast: the batch was cancelled") }
        return .transactionHash(try await TransactionBroadcaster.broadcast(signed, for: request, node: node))
    }

    /// The lowest nonce a node-filled nonce may take: one past the highest this batch used (the journal's
    /// reservation then moves it past what other signers hold).
    private func nonceFloor(for transaction: TransactionRequest, lane: NonceLane, batch: BatchContext?) -> UInt256? {
        guard transaction.nonce == nil, let batch else { return nil }
        return batch.highestNonce(in: lane).flatMap { $0.adding(UInt256(1)) }
    }
}

/// A backend whose refusals can be decided from the resolved request alone; the dispatcher asks it
/// while resolving the batch, before any backend is called.
protocol PreflightChecked: Sendable {
    /// Why `request` cannot succeed with this backend, or `nil` when it may be attempted.
    func preflight(_ request: ResolvedRequest) -> DispatchError.Kind?
}

extension PrehashBackend: PreflightChecked {
    /// Refuses what ``handle(_:)`` would only refuse later: a request for another account, an
    /// `eth_sendTransaction` without a node for its chain, and a transaction with missing nonce, gas or
    /// fees that no node can fill (naming the missing fields).
    func preflight(_ request: ResolvedRequest) -> DispatchError.Kind? {
        guard request.account == key.address else {
            return .accountMismatch(field: "account", expected: key.address, actual: request.account)
        }
        guard case .transaction(let transaction, _) = request.payload, request.node == nil else { return nil }
        if !transaction.missingFields.isEmpty {
            return .incompleteTransaction(
                missing: transaction.missingFields, chain: request.action.chainId.description)
        }
        if request.method == .sendTransaction { return .noNode(request.action.chainId.description) }
        return nil
    }
}
