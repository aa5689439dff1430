import EthereumPrimitives

/// What a transaction journal keeps about an EIP-5792 call batch (`wallet_sendCalls`) before any of its
/// transactions is signed: its id, which request it was (a digest), and how it is executed. The journal
/// records the first batch under an id and answers every later claim of that id with it
/// (``TransactionJournal/claimCallBatch(_:)``), so one id is one batch on every instance sharing the journal,
/// and a retry after a crash re-runs the batch exactly as it was decided, re-sending what was journalled.
public struct CallBatchRecord: Sendable, Hashable {
    /// How the calls reach the chain.
    public enum Execution: Sendable, Hashable {
        /// One transaction from the account to itself calling its ERC-7821 `execute`: the account's code
        /// (an EIP-7702 delegation) executes the calls, all or none.
        case atomic
        /// The same, in a type-4 transaction that also carries the account's authorization delegating to
        /// this executor (the account was `ready`).
        case atomicDelegating(to: Address)
        /// One transaction per call, in order, each sent once the previous one is mined with status 1.
        case sequential
        /// One transaction from `submitter` that the smart account's own backend built
        /// (``AtomicBatchAccount``: a Safe's `execTransaction` through `MultiSendCallOnly`).
        case smartAccount(submitter: Address)
    }

    /// The batch id (scoped by the caller, e.g. the service's client).
    public let id: String
    /// Keccak-256 of the request: account, chain, `atomicRequired` and every call (see
    /// ``CallBatchRequest/digest``).
    public let digest: Bytes32
    /// The chain.
    public let chain: ChainID
    /// The sending account.
    public let account: Address
    /// How many calls the batch holds.
    public let callCount: Int
    /// How the calls are executed.
    public let execution: Execution

    /// A record.
    public init(id: String, digest: Bytes32, chain: ChainID, account: Address, callCount: Int, execution: Execution) {
        self.id = id
        self.digest = digest
        self.chain = chain
        self.account = account
        self.callCount = callCount
        self.execution = execution
    }

    /// Whether the calls run in one transaction.
    public var isAtomic: Bool { execution != .sequential }

    /// How many transactions the batch sends: one when atomic, else one per call.
    public var transactionCount: Int { isAtomic ? 1 : callCount }

    /// The idempotency key the batch's transactions are journalled under (transaction `i` of the batch is
    /// ``ActionIdentity/init(idempotencyKey:index:)`` with this key and `i`).
    public var journalKey: String { Self.journalKey(id: id) }

    /// The journal key of batch `id`.
    static func journalKey(id: String) -> String { "wallet_sendCalls:\(id.utf8.count):\(id)" }

    /// The identity of the batch's transaction `index`.
    public func transactionIdentity(_ index: Int) -> ActionIdentity {
        ActionIdentity(idempotencyKey: journalKey, index: index)
    }

    /// The delegate of an ``Execution/atomicDelegating(to:)`` batch, the submitter of an
    /// ``Execution/smartAccount(submitter:)`` one, else `nil` (what journals store beside the execution's name).
    public var delegate: Address? {
        switch execution {
        case .atomicDelegating(let delegate): delegate
        case .smartAccount(let submitter): submitter
        case .atomic, .sequential: nil
        }
    }

    /// The execution's name as journals store it: `atomic`, `atomic-delegating`, `sequential` or
    /// `smart-account`.
    public var executionName: String {
        switch execution {
        case .atomic: "atomic"
        case .atomicDelegating: "atomic-delegating"
        case .sequential: "sequential"
        case .smartAccount: "smart-account"
        }
    }

    /// The record a journal stored as `executionName` (with `delegate` for `atomic-delegating`), or `nil`
    /// when the two do not make an execution.
    public init?(
        id: String, digest: Bytes32, chain: ChainID, account: Address, callCount: Int, executionName: String,
        delegate: Address?
    ) {
        let execution: Execution
        switch (executionName, delegate) {
        case ("atomic", nil): execution = .atomic
        case ("atomic-delegating", let delegate?): execution = .atomicDelegating(to: delegate)
        case ("sequential", nil): execution = .sequential
        case ("smart-account", let submitter?): execution = .smartAccount(submitter: submitter)
        default: return nil
        }
        guard callCount > 0 else { return nil }
        self.init(id: id, digest: digest, chain: chain, account: account, callCount: callCount, execution: execution)
    }
}
