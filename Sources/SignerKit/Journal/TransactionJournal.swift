import EthereumPrimitives

/// A transaction SignerKit signed and is about to broadcast, as the journal keeps it.
public struct JournalEntry: Sendable, Hashable {
    /// The action it answers.
    public let identity: ActionIdentity
    /// The CAIP-2 chain.
    public let chain: ChainID
    /// The sender.
    public let account: Address
    /// Its nonce.
    public let nonce: UInt256
    /// Its hash (Keccak-256 of ``rawTransaction``).
    public let hash: Bytes32
    /// The signed transaction exactly as broadcast (public data once sent; never a secret).
    public let rawTransaction: [UInt8]

    /// An entry.
    public init(
        identity: ActionIdentity, chain: ChainID, account: Address, nonce: UInt256, hash: Bytes32,
        rawTransaction: [UInt8]
    ) {
        self.identity = identity
        self.chain = chain
        self.account = account
        self.nonce = nonce
        self.hash = hash
        self.rawTransaction = rawTransaction
    }
}

/// How a journalled transaction's story ended.
public enum JournalOutcome: String, Sendable, Hashable {
    /// The caller received the batch as a success: the entry is history, and the same action later is a new
    /// payment.
    case reported
    /// The node refused the transaction and never knew it, or its nonce was taken by another transaction: it
    /// can never be mined, so a retry signs anew.
    case rejected
}

/// Why the journal could not answer.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Reading or writing the journal failed; the text names the file and the cause.
    case io(String)
    /// A line of the journal is not a record this version understands; `line` counts from 1.
    case corrupt(line: Int, reason: String)
    /// Another unresolved entry already holds this nonce for this account and chain (another process signed
    /// with it): nothing may be broadcast with it.
    case nonceInUse(nonce: UInt256, hash: Bytes32)
    /// Another unresolved entry already answers this action (another run of the same request — a retry
    /// that took over the claim of one thought dead, say — journalled it first): nothing may be broadcast for
    /// the action but that transaction.
    case actionInFlight(hash: Bytes32)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .io(let text): text
        case .corrupt(let line, let reason): "line \(line) is corrupt: \(reason)"
        case .nonceInUse(let nonce, let hash):
            "nonce \(nonce.decimalString) is already used by the unresolved transaction \(hash)"
        case .actionInFlight(let hash):
            "the action is already answered by the unresolved transaction \(hash) (another run of the request)"
        }
    }
}

/// A write-ahead log of broadcasts: the dispatcher records a signed transaction before it is sent, so a run
/// that dies, or whose send answer was lost, can be retried by re-sending the *same* bytes, never by signing
/// a new nonce. ``FileTransactionJournal`` is the built-in implementation.
///
/// An entry is *unresolved* from ``record(_:)`` until ``resolve(_:as:)``. Implementations must be safe for
/// concurrent use, from several processes when they share storage.
public protocol TransactionJournal: Sendable {
    /// Stores `entry` durably (on stable storage when this returns).
    ///
    /// At most one unresolved entry answers an action: two runs of one request (a retry that took over a
    /// claim while the first run still lived) never both pay it. This check and the write are one atomic step.
    ///
    /// - Throws: ``JournalError/nonceInUse(nonce:hash:)`` when an unresolved entry of the same chain and
    ///   account holds the nonce; ``JournalError/actionInFlight(hash:)`` when an unresolved entry with another
    ///   hash has the same identity; ``JournalError/io(_:)`` when the entry could not be stored.
    func record(_ entry: JournalEntry) async throws(JournalError)

    /// Marks the entries with these hashes as resolved with `outcome`.
    func resolve(_ hashes: [Bytes32], as outcome: JournalOutcome) async throws(JournalError)

    /// The newest entry for `identity` that is unresolved or, when `includingReported`, reported: never a
    /// rejected one. A keyed retry asks with `includingReported` (an action named by a key is paid once, even
    /// after its success was recorded); an action known by its bytes alone asks without (the same bytes later
    /// are a new payment once the first was reported).
    func entry(for identity: ActionIdentity, includingReported: Bool) async throws(JournalError) -> JournalEntry?

    /// Every unresolved entry, oldest first: what a recovery sweep re-sends or resolves.
    func unresolvedEntries() async throws(JournalError) -> [JournalEntry]

    /// The highest nonce of any entry for `account` on `chain` that was not ``JournalOutcome/rejected``.
    func highestNonce(chain: ChainID, account: Address) async throws(JournalError) -> UInt256?

    /// Reserves the nonce of a transaction `account` is about to sign on `chain`, so that signers sharing the
    /// journal (concurrent requests, other processes, other instances) never pick the same one: the lowest
    /// nonce at or above `floor` (the node's pending count, or one past what the batch used) that no entry
    /// other than a rejected one and no live reservation holds. Lowest, so a released reservation leaves no
    /// gap that would stall the account.
    ///
    /// A reservation ends when an entry with its nonce is recorded, when it is released, or after `lease`
    /// (a signer that died frees its nonce). The default, for journals that keep no reservations, is one past
    /// ``highestNonce(chain:account:)`` when that is above `floor`, else `floor`.
    func reserveNonce(chain: ChainID, account: Address, atLeast floor: UInt256, lease: Duration)
        async throws(JournalError) -> UInt256

    /// Ends a reservation whose transaction will not be recorded (signing failed or was refused). The default
    /// does nothing.
    func releaseNonce(chain: ChainID, account: Address, nonce: UInt256) async throws(JournalError)

    /// Records an EIP-5792 call batch under its id before any of its transactions is signed, unless a batch
    /// is already recorded under that id: returns the batch recorded under the id, `batch` itself or the earlier
    /// one. The check and the write are one atomic step for every process sharing the journal, so two
    /// requests with one id never both decide how it runs.
    func claimCallBatch(_ batch: CallBatchRecord) async throws(JournalError) -> CallBatchRecord

    /// The call batch recorded under `id`, if any.
    func callBatch(id: String) async throws(JournalError) -> CallBatchRecord?
}

extension TransactionJournal {
    /// The newest unresolved entry for `identity`, if any.
    public func unresolvedEntry(for identity: ActionIdentity) async throws(JournalError) -> JournalEntry? {
        try await entry(for: identity, includingReported: false)
    }

    /// One past the highest journalled nonce when that is above `floor`, else `floor` (no reservation is kept).
    public func reserveNonce(chain: ChainID, account: Address, atLeast floor: UInt256, lease: Duration)
        async throws(JournalError) -> UInt256
    {
        guard let highest = try await highestNonce(chain: chain, account: account),
            let next = highest.adding(UInt256(1)), next > floor
        else { return floor }
        return next
    }

    /// Nothing to release: no reservation was kept.
    public func releaseNonce(chain: ChainID, account: Address, nonce: UInt256) async throws(JournalError) {}
}
