import Foundation

/// How an ``RpcDispatcher`` sequences, confirms and journals what it signs. The defaults are the safe ones.
public struct DispatchConfiguration: Sendable {
    /// The active cores, read once: Foundation reads the cgroup files on every `activeProcessorCount`, which
    /// cost as much as resolving a small batch.
    static let activeCores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Dependent actions (on by default): within one batch, an action of an account that follows an
    /// `eth_sendTransaction` of the same account is signed only once that transaction is mined with status 1
    /// (a Pay two-step option: the `approve` must be mined before the permit is signed). Turn it off only
    /// when the caller sequences its actions itself.
    public var ordersDependentActions: Bool

    /// Whether every `eth_sendTransaction` on a chain with a node is followed to its receipt before the
    /// bundle is returned, so a reverted or dropped transaction fails the batch (on by default).
    /// Transactions on chains without a node (a hosted wallet broadcasting on its own) are returned as hashes.
    public var confirmsTransactions: Bool

    /// The longest wait for one transaction's receipt (the caller's deadline, when earlier, wins).
    public var receiptTimeout: Duration

    /// How often a receipt is polled for.
    public var receiptPollInterval: Duration

    /// The write-ahead journal of broadcasts, or `nil` for none. With a journal, a retried batch re-sends
    /// transactions already signed instead of signing new nonces (see ``TransactionJournal``).
    public var journal: (any TransactionJournal)?

    /// How every action's ``SigningPreview`` is computed (token registry, ERC-7730 descriptors, the clock
    /// deadlines are judged against). Previews are computed when actions are resolved, before policies.
    public var previewer: SigningPreviewer = SigningPreviewer()

    /// How long a nonce reservation holds when its signer neither records nor releases it (a process that
    /// died between reserving and journalling): longer than filling, policies and a signature take, short
    /// enough that a dead signer's nonce is soon free again (two minutes by default; the signer service uses
    /// two request timeouts).
    public var nonceReservationLease: Duration = .seconds(120)

    /// What every wait of a batch reads: receipt deadlines and polls, waits for dependent actions
    /// (`SystemClock` unless a test or an application gives another).
    public var clock: any SignerClock = SystemClock()

    /// How many actions are resolved (parsed, hashed, previewed and checked) at once in a larger batch, or
    /// `nil` for one per active core. Results are in action order whatever the number.
    public var resolutionWorkers: Int?

    /// The defaults: dependent actions ordered, transactions confirmed, receipts awaited up to two minutes
    /// (polled every half second), no journal.
    public init(
        ordersDependentActions: Bool = true, confirmsTransactions: Bool = true,
        receiptTimeout: Duration = .seconds(120),
        receiptPollInterval: Duration = .milliseconds(500), journal: (any TransactionJournal)? = nil
    ) {
        self.ordersDependentActions = ordersDependentActions
        self.confirmsTransactions = confirmsTransactions
        self.receiptTimeout = receiptTimeout
        self.receiptPollInterval = receiptPollInterval
        self.journal = journal
    }
}
