import EthereumPrimitives

/// A nonce a backend reserved in the journal for a transaction it is signing (see
/// ``TransactionJournal/reserveNonce(chain:account:atLeast:lease:)``).
struct NonceReservation: Sendable {
    let journal: any TransactionJournal
    let lane: NonceLane
    let nonce: UInt256

    /// Frees the nonce for other signers. A failure to release is not the caller's failure: the lease ends it.
    func release() async {
        try? await journal.releaseNonce(chain: lane.chain, account: lane.account, nonce: nonce)
    }
}
