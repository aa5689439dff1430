import EthereumPrimitives

/// Why `wallet_sendCalls` or `wallet_getCallsStatus` gave no answer, with the JSON-RPC error code EIP-5792
/// (or JSON-RPC itself) assigns to each (``code``).
public enum CallBatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field of the request is missing or malformed (`-32602`).
    case invalidParams(field: String, reason: String)
    /// A capability the request requires (not marked optional) is not supported (5700).
    case unsupportedCapability(String)
    /// The chain is not one the dispatcher sends transactions on (5710).
    case unsupportedChain(String)
    /// Another batch with other calls was already sent under this id (5720).
    case duplicateID(String)
    /// No batch was sent under this id (5730).
    case unknownBatch(String)
    /// More calls than one batch may hold (5740).
    case tooLarge(count: Int, limit: Int)
    /// `atomicRequired` is true and the account cannot execute the calls atomically on the chain (5760).
    case atomicityNotSupported(account: Address, chain: ChainID)
    /// No backend sends transactions for the account on the chain (4100, unauthorized).
    case unknownAccount(Address)
    /// The dispatcher has no transaction journal: a batch id could not be kept, so nothing is sent.
    case noJournal
    /// The journal could not be read or written; nothing was sent for the batch unless its status says so.
    case journal(JournalError)
    /// The chain's node failed while the batch was prepared or its status read.
    case node(String)
    /// The dispatcher refused or failed the batch's transactions before any was broadcast.
    case dispatch(DispatchError)
    /// The caller's last check before signing refused the batch (``RpcDispatcher/sendCalls(_:deadline:caller:admit:beforeSigning:)``).
    case refused(String)

    /// The JSON-RPC error code: EIP-5792's for its cases, `-32602` for malformed params, 4100 for an account
    /// the wallet does not hold, `-32000` for the rest.
    public var code: Int {
        switch self {
        case .invalidParams: -32602
        case .unsupportedCapability: 5700
        case .unsupportedChain: 5710
        case .duplicateID: 5720
        case .unknownBatch: 5730
        case .tooLarge: 5740
        case .atomicityNotSupported: 5760
        case .unknownAccount: 4100
        case .noJournal, .journal, .node, .dispatch, .refused: -32000
        }
    }

    /// What went wrong, naming the field, id, account or chain.
    public var description: String {
        switch self {
        case .invalidParams(let field, let reason): "wallet_sendCalls: \(field): \(reason)"
        case .unsupportedCapability(let name): "the capability \(name.debugDescription) is not supported"
        case .unsupportedChain(let chain): "chain \(chain) is not supported (no node or not eip155)"
        case .duplicateID(let id):
            "batch id \(EchoedText.abbreviated(id).debugDescription) was already used for other calls"
        case .unknownBatch(let id): "no batch with id \(EchoedText.abbreviated(id).debugDescription)"
        case .tooLarge(let count, let limit): "a batch may hold at most \(limit) calls, got \(count)"
        case .atomicityNotSupported(let account, let chain):
            "\(account.checksummed) cannot execute calls atomically on \(chain) (atomic capability unsupported)"
        case .unknownAccount(let account): "no backend sends transactions for \(account.checksummed)"
        case .noJournal: "wallet_sendCalls needs a transaction journal to keep batch ids; none is configured"
        case .journal(let error): "transaction journal: \(error)"
        case .node(let text): "node: \(text)"
        case .dispatch(let error): error.description
        case .refused(let reason): "refused before signing: \(reason)"
        }
    }
}
