import EthereumPrimitives
import EthereumTransactions
import SignerKitSupport

/// The life of a transaction a registered key signs, owned by the dispatcher, in named stages:
///
/// fill → reserve the nonce → filled-transaction policies → sign → verify → journal → broadcast
///
/// A Ronin sponsored transaction (type 0x64) skips filling (its payer signed every field) and has its payer's
/// signature checked before the key signs.
///
/// then ``BatchRun`` follows the receipt and the batch records the outcome. The key only signs a digest
/// (``PrehashSigner``), or a ``FilledTransactionSigner`` backend signs the filled transaction (its answer must
/// be exactly that transaction); everything else happens here, in this order, for every signer. Each stage throws
/// the ``DispatchError/Kind`` the caller sees, so a failure has one path from where it happens to the
/// ``DispatchError``. A backend that sends by itself (a hosted wallet) returns a hash that ``BatchRun``
/// follows the same way.
///
/// The durable order: a nonce is reserved before signing (so no two signers pick it), the signed
/// transaction is verified, then recorded in the journal (which ends the reservation) before it is sent;
/// nothing unverified or unjournalled is ever broadcast, and a journalled transaction is re-sent, never
/// re-signed.
struct TransactionPipeline: Sendable {
    let signer: PipelineSigner
    let request: ResolvedRequest
    let batch: BatchContext
    let transaction: TransactionRequest
    let feesOpen: Bool

    private var lane: NonceLane { NonceLane(account: request.account, chain: request.action.chainId) }

    /// Runs every stage: a raw transaction for `eth_signTransaction`, the hash of the broadcast one for
    /// `eth_sendTransaction`.
    func run() async throws(DispatchError.Kind) -> ActionResult {
        if case .key(let key) = signer, request.account != key.address {
            throw .accountMismatch(field: "account", expected: key.address, actual: request.account)
        }
        var filled = try await fill()
        CrashPoint.reached(.filled)
        let reservation = try await reserveNonce(of: &filled)
        var authorityNonce: NonceReservation?
        do {
            authorityNonce = try await reserveAuthorityNonce(after: filled)
            try await authorizeSelfDelegation(of: &filled)
            return try await signAndSend(filled)
        } catch {
            // Nothing was recorded with the nonce (a recorded entry ends its reservation itself), nor will the
            // authorization ever take the next one.
            if !batch.isJournalled(at: request.index) {
                if let reservation { await reservation.release() }
                if let authorityNonce { await authorityNonce.release() }
            }
            throw error
        }
    }

    /// Stage 1: nonce, gas and fees from the node; a node-filled nonce never below one this batch used. A Ronin
    /// sponsored request (type 0x64) is signed exactly as its payer signed it: nothing is filled.
    private func fill() async throws(DispatchError.Kind) -> TransactionRequest {
        if transaction.type == .roninSponsored {
            if let incomplete = Self.sponsoredIncomplete(transaction) { throw incomplete }
            var complete = transaction
            complete.from = complete.from ?? request.account
            return complete
        }
        let floor = transaction.nonce == nil ? batch.highestNonce(in: lane).flatMap { $0.adding(UInt256(1)) } : nil
        let (transaction, feesOpen, account, node) = (transaction, feesOpen, request.account, request.node)
        let authorizing = try selfAuthorizer()
        do {
            return try await NodeCall.shielded { () async throws(SignerError) -> TransactionRequest in
                try await TransactionFiller.fill(
                    transaction, feesOpen: feesOpen, from: account, node: node, nonceFloor: floor,
                    authorizing: authorizing)
            }
        } catch {
            throw .backend(error)
        }
    }

    /// Stage 2: a node-filled nonce is reserved in the journal, so signers sharing it never pick the same one.
    private func reserveNonce(of filled: inout TransactionRequest) async throws(DispatchError.Kind)
        -> NonceReservation?
    {
        guard transaction.nonce == nil, let journal = batch.journal, let proposed = filled.nonce else { return nil }
        let nonce: UInt256
        do {
            nonce = try await journal.reserveNonce(
                chain: lane.chain, account: lane.account, atLeast: proposed, lease: batch.nonceReservationLease)
        } catch {
            throw .journalFailure(error.description)
        }
        filled.nonce = nonce
        CrashPoint.reached(.reserved)
        return NonceReservation(journal: journal, lane: lane, nonce: nonce)
    }

    /// Signs the account's own authorization for a transaction with nonce `n` (tuple nonce `n + 1`), when the
    /// request delegates in its own transaction (``ResolvedRequest/selfDelegation``); `nil` otherwise. Only a
    /// key can: another backend is refused before anything is filled.
    private func selfAuthorizer() throws(DispatchError.Kind)
        -> (@Sendable (UInt256) async throws(SignerError) -> SignedAuthorization)?
    {
        guard let delegation = request.selfDelegation else { return nil }
        guard case .key(let key) = signer else {
            throw .backend(.invalidRequest("the account's backend cannot sign an EIP-7702 authorization"))
        }
        let chainId = request.chainId
        return { (nonce: UInt256) async throws(SignerError) -> SignedAuthorization in
            guard let next = nonce.adding(UInt256(1))?.uint64 else {
                throw .invalidRequest("nonce \(nonce.decimalString) leaves no authorization nonce")
            }
            return try await key.signAuthorization(
                Authorization(chainId: chainId, address: delegation.delegate, nonce: next), policy: delegation.policy)
        }
    }

    /// A self-delegating transaction with nonce `n` takes `n + 1` too (its own authorization increments the
    /// account's nonce once more): that nonce is reserved in the journal as well, so no other signer sharing it
    /// signs a transaction the authorization would invalidate. When another signer already holds `n + 1`, the
    /// delegation is refused before anything is signed. The reservation ends by its lease (by then the
    /// transaction is mined and the node counts both nonces) or is released when nothing was sent.
    private func reserveAuthorityNonce(after filled: TransactionRequest) async throws(DispatchError.Kind)
        -> NonceReservation?
    {
        guard request.selfDelegation != nil, let journal = batch.journal, let nonce = filled.nonce,
            let next = nonce.adding(UInt256(1))
        else { return nil }
        let reserved: UInt256
        do {
            reserved = try await journal.reserveNonce(
                chain: lane.chain, account: lane.account, atLeast: next, lease: batch.nonceReservationLease)
        } catch {
            throw .journalFailure(error.description)
        }
        let reservation = NonceReservation(journal: journal, lane: lane, nonce: reserved)
        guard reserved == next else {
            await reservation.release()
            throw .backend(
                .invalidRequest(
                    "nonce \(next.decimalString), which the account's own authorization would take, is held by another "
                        + "transaction: the batch is not signed; retry once that transaction is sent"))
        }
        return reservation
    }

    /// After the nonce is reserved: the self-delegation's tuple names that nonce + 1 (signed again when the
    /// reservation moved the nonce the filler proposed).
    private func authorizeSelfDelegation(of filled: inout TransactionRequest) async throws(DispatchError.Kind) {
        guard let authorizing = try selfAuthorizer(), let nonce = filled.nonce,
            filled.authorizationList.first.map({ UInt256($0.nonce) != nonce.adding(UInt256(1)) }) ?? true
        else { return }
        do {
            filled.authorizationList = [try await authorizing(nonce)]
        } catch {
            throw DispatchError.Kind(backendError: error)
        }
        filled.type = .eip7702
    }

    /// The refusal of a sponsored request (type 0x64) that lacks a field: its payer signed every field, so
    /// nothing may be filled in; `nil` when it is complete.
    static func sponsoredIncomplete(_ transaction: TransactionRequest) -> DispatchError.Kind? {
        guard let missing = transaction.missingFields.first else { return nil }
        return .backend(
            .invalidRequest(
                "transaction: field \"\(missing)\" is missing (a sponsored transaction is signed as its payer signed "
                    + "it, nothing is filled)"))
    }

    /// Stages 3 to 7: policies, signature, then for `eth_sendTransaction` verification, journal, broadcast.
    private func signAndSend(_ filled: TransactionRequest) async throws(DispatchError.Kind) -> ActionResult {
        let complete: Transaction
        do {
            // A sponsored transaction: the payer's signature must recover to its payer before the sender signs.
            complete =
                filled.type == .roninSponsored
                ? .roninSponsored(try filled.roninSponsored(chainId: request.chainId))
                : try filled.complete(chainId: request.chainId)
        } catch {
            throw .backend(.invalidRequest("transaction: \(error)"))
        }
        for policy in batch.filledTransactionPolicies {
            if case .fail(let reason) = policy.evaluate(filled: complete, for: request) {
                throw .policyViolation(policy: policy.name, reason: reason)
            }
        }
        var sent = filled
        sent.from = request.account
        sent.chainId = request.chainId
        let signed = try await signer.sign(complete, filled: sent, account: request.account)
        CrashPoint.reached(.signed)
        batch.noteNonce(complete.nonce, in: lane)
        // eth_signTransaction: the raw transaction is verified once, like any backend's result (BatchRun).
        guard request.method == .sendTransaction else { return .rawTransaction(signed.rawTransaction) }
        // Nothing SignerKit did not verify is broadcast.
        do { try ResultVerifier.verify(signed, matches: transaction, feesOpen: feesOpen, for: request) } catch {
            throw .verificationFailed(error.description)
        }
        CrashPoint.reached(.verified)
        guard let node = request.node else { throw .noNode(request.action.chainId.description) }
        // Another action of the batch failed while this one was being filled and signed: do not broadcast.
        guard !Task.isCancelled else { throw .backend(.backendFailure("not broadcast: the batch was cancelled")) }
        return .transactionHash(try await TransactionBroadcaster.broadcast(signed, for: request, in: batch, node: node))
    }
}

extension DispatchError.Kind: Error {
    /// The kind for a backend's (or a key's) error: a failed verification or a policy refusal the backend
    /// reports keeps its own kind, everything else is ``DispatchError/Kind/backend(_:)``.
    init(backendError error: SignerError) {
        switch error {
        case .verificationFailed(let reason): self = .verificationFailed(reason)
        case .policyViolation(let policy, let reason): self = .policyViolation(policy: policy, reason: reason)
        default: self = .backend(error)
        }
    }
}
