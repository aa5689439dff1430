import EthereumPrimitives
import Synchronization

/// Transactions of one account on one chain: they share a nonce sequence.
struct NonceLane: Hashable, Sendable {
    let account: Address
    let chain: ChainID
}

/// What the actions of one `sign(actions:)` call share while they run: the journal and the identities it
/// knows them by, the nonces already used, the transactions already broadcast, and the policies on filled
/// transactions. Attached to every ``ResolvedRequest`` of the batch (internal to SignerKit).
final class BatchContext: Sendable {
    /// The journal, when the dispatcher has one.
    let journal: (any TransactionJournal)?
    /// The journal identity of each `eth_sendTransaction` action, by index.
    let identities: [Int: ActionIdentity]
    /// Whether the identities come from the caller's idempotency key (else from the actions' bytes).
    let keyed: Bool
    /// Policies that judge a transaction once nonce, gas and fees are filled.
    let filledTransactionPolicies: [any FilledTransactionPolicy]
    /// How long a nonce reservation of this batch holds if its signer dies.
    let nonceReservationLease: Duration
    /// The charges of quotas and limits over time.
    let usage: UsageAdmissions

    private let highestNonces = Mutex<[NonceLane: UInt256]>([:])
    private let broadcasts = Mutex<[Int: Bytes32]>([:])
    private let journalled = Mutex<Set<Int>>([])

    init(
        journal: (any TransactionJournal)?, identities: [Int: ActionIdentity], keyed: Bool,
        filledTransactionPolicies: [any FilledTransactionPolicy], nonceReservationLease: Duration,
        usagePolicies: [any UsagePolicy] = [], approvedRules: Set<String> = []
    ) {
        usage = UsageAdmissions(policies: usagePolicies, approvedRules: approvedRules)
        self.nonceReservationLease = nonceReservationLease
        self.journal = journal
        self.identities = identities
        self.keyed = keyed
        self.filledTransactionPolicies = filledTransactionPolicies
    }

    /// Records that the transaction of action `index` is (about to be) broadcast.
    func noteBroadcast(_ hash: Bytes32, at index: Int) { broadcasts.withLock { $0[index] = hash } }

    /// Records that the transaction of action `index` is in the journal (which ended its nonce reservation).
    func noteJournalled(at index: Int) { _ = journalled.withLock { $0.insert(index) } }

    /// Whether the transaction of action `index` was recorded in the journal.
    func isJournalled(at index: Int) -> Bool { journalled.withLock { $0.contains(index) } }

    /// Forgets a broadcast the node definitely refused.
    func forgetBroadcast(at index: Int) { _ = broadcasts.withLock { $0.removeValue(forKey: index) } }

    /// Every transaction broadcast so far, or attempted with an unknown outcome: index → hash.
    var broadcastTransactions: [Int: Bytes32] { broadcasts.withLock { $0 } }

    /// Records a nonce used in this batch.
    func noteNonce(_ nonce: UInt256, in lane: NonceLane) {
        highestNonces.withLock { table in
            if let known = table[lane], known >= nonce { return }
            table[lane] = nonce
        }
    }

    /// The highest nonce used in this batch for `lane`.
    func highestNonce(in lane: NonceLane) -> UInt256? { highestNonces.withLock { $0[lane] } }
}

/// The journal identities of the batches a dispatcher is running now: an identity known by an action's bytes
/// is held by one running batch at a time, so an entry in flight is never answered for another request.
final class LiveIdentities: Sendable {
    private let held = Mutex<Set<ActionIdentity>>([])

    /// Holds `identity`; `false` when a running batch holds it already.
    func claim(_ identity: ActionIdentity) -> Bool { held.withLock { $0.insert(identity).inserted } }

    /// Lets these identities go (keyed identities that were never claimed are ignored).
    func release(_ identities: some Sequence<ActionIdentity>) {
        held.withLock { held in for identity in identities { held.remove(identity) } }
    }
}
