import EthereumPrimitives

/// A nonce a backend reserved in the journal for a transaction it is signing (see
/// ``TransactionJournal/reserveNonce(chain:account:atLeast:lease:)``).
struct NonceReservation: Sendable {
    /// How long a reservation holds when its signer neither records nor releases it: longer than filling,
    /// policies and an HSM signature take, short enough that a dead signer's nonce is soon free again.
    static let lease: Duration = .seconds(120)

    let journal: any TransactionJournal
    let lane: NonceLane
    let nonce: UInt256

    /// Frees the nonce for other signers. A failure to release is not the caller's failure: the lease ends it.
    func release() async {
        try? await journal.releaseNonce(chain: lane.chain, account: lane.account, nonce: nonce)
    }
}
