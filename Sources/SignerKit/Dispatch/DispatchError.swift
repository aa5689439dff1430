import EthereumPrimitives

/// Why `RpcDispatcher.sign(actions:)` returned no bundle. Names the action index and method, and
/// every transaction of the batch that may already be on its way to the chain (``broadcast``).
public struct DispatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The action list or one action is malformed; the text names the field.
        case invalidAction(String)
        /// The method is not one SignerKit signs.
        case unknownMethod
        /// The action's params are invalid; the text names the field or position.
        case invalidParams(String)
        /// The chain is not an `eip155` chain.
        case unsupportedChain(String)
        /// No registered backend signs for this account on this chain with this method; `registered`
        /// lists where the account *is* registered (empty when it is not registered at all).
        case unknownAccount(Address, registered: [AccountRegistration])
        /// A chain id in the request differs from the action's CAIP-2 chain.
        case chainMismatch(field: String, expected: String, actual: String)
        /// The address in the params differs from the routed account.
        case accountMismatch(field: String, expected: Address, actual: Address)
        /// A policy refused the action.
        case policyViolation(policy: String, reason: String)
        /// The caller may not ask for this action (the admission check given to
        /// ``RpcDispatcher/prepare(actions:caller:admit:)`` refused it); the text says why.
        case notPermitted(String)
        /// The backend failed.
        case backend(SignerError)
        /// The backend's result did not pass the dispatcher's check (wrong signer, high s, wrong kind of
        /// result, a raw transaction that differs from the request…); the text says which.
        case verificationFailed(String)
        /// A contract account's signature could not be checked: the node of its chain failed (the text says
        /// how). The signature may be valid; nothing was bundled.
        case verificationUnavailable(String)
        /// The transaction was mined and reverted (receipt status 0).
        case transactionReverted(Bytes32)
        /// The transaction was not mined before the deadline, or the node no longer knows it (dropped).
        case transactionNotMined(Bytes32)
        /// A transaction misses fields that only a node could fill, and no node is configured for its chain.
        case incompleteTransaction(missing: [String], chain: String)
        /// The transaction journal could not be read or written; nothing was broadcast for this action.
        case journalFailure(String)
        /// The store of a quota or limit over time (``UsagePolicy``) could not count the action; nothing was
        /// signed for it.
        case usageStoreFailure(String)
        /// The action follows the `eth_sendTransaction` at index `on` of the same account, so it may only be
        /// signed once that transaction is mined, and no node is configured for `chain` to follow it.
        case unobservableDependency(on: Int, chain: String)
        /// The caller's task was cancelled.
        case cancelled
        /// `eth_sendTransaction` (or filling a transaction) needs a node for this chain and none is configured.
        case noNode(String)
        /// The action list is empty.
        case emptyActionList
        /// An ``ApprovalPolicy`` holds the action for approval, or a limit over time would be exceeded and its
        /// rule holds instead of refusing (these requirements): it is signed only once a held request with the
        /// approvals clears it (``PreparedActions/requiring(_:)``, ``PreparedActions/approved(by:)``).
        case approvalRequired([ApprovalRequirement])
        /// The idempotency key (and position) already paid for another transaction, `journalled`: the action
        /// asks for something else (the text says what differs), so it is neither signed nor answered with it.
        case idempotencyKeyReused(journalled: Bytes32, reason: String)
    }

    /// Index of the action in the list (nil for list-level problems).
    public let index: Int?
    /// The action's method name, when known.
    public let method: String?
    /// What went wrong.
    public let kind: Kind
    /// Every transaction of the batch that was broadcast, or whose broadcast was attempted with an unknown
    /// outcome (its hash is known before sending): action index → transaction hash. A caller must treat
    /// these as possibly on chain; re-running the same batch with the same journal re-sends these same
    /// transactions instead of signing new ones.
    public let broadcast: [Int: Bytes32]

    /// Builds an error.
    public init(index: Int?, method: String?, kind: Kind, broadcast: [Int: Bytes32] = [:]) {
        self.index = index
        self.method = method
        self.kind = kind
        self.broadcast = broadcast
    }

    /// `action[1] (personal_sign): …`.
    public var description: String {
        var prefix = ""
        if let index { prefix = "action[\(index)]" }
        let shownMethod = method.map { EchoedText.abbreviated($0) }
        if let shownMethod { prefix += prefix.isEmpty ? shownMethod : " (\(shownMethod))" }
        let text: String
        switch kind {
        case .invalidAction(let t): text = t
        case .unknownMethod: text = "unknown method \(shownMethod ?? "")"
        case .invalidParams(let t): text = "params: \(t)"
        case .unsupportedChain(let c): text = "unsupported chain \(c) (only eip155 chains are signed)"
        case .unknownAccount(let account, let registered):
            text =
                registered.isEmpty
                ? "no backend registered for account \(account)"
                : "no backend registered for account \(account) on this chain with this method; it is registered for "
                    + registered.map(\.description).joined(separator: "; ")
        case .chainMismatch(let field, let expected, let actual):
            text = "\(field) \(actual) differs from the action's chain \(expected)"
        case .accountMismatch(let field, let expected, let actual):
            text = "\(field) \(actual) differs from the routed account \(expected)"
        case .policyViolation(let policy, let reason): text = "refused by policy \(policy): \(reason)"
        case .notPermitted(let reason): text = "not permitted: \(reason)"
        case .backend(let error): text = "\(error)"
        case .verificationFailed(let reason): text = "result refused: \(reason)"
        case .verificationUnavailable(let reason): text = "result not checked: the node failed: \(reason)"
        case .transactionReverted(let hash): text = "transaction \(hash) reverted (receipt status 0)"
        case .transactionNotMined(let hash):
            text = "transaction \(hash) was not mined (dropped, or the deadline passed)"
        case .incompleteTransaction(let missing, let chain):
            text =
                "transaction is missing \(missing.joined(separator: ", ")) and no Ethereum node is configured for \(chain) to fill it"
        case .journalFailure(let reason): text = "transaction journal: \(reason)"
        case .usageStoreFailure(let reason): text = "usage counter store: \(reason)"
        case .unobservableDependency(let send, let chain):
            text =
                "follows eth_sendTransaction action[\(send)] of the same account, which must be mined first, and no "
                + "Ethereum node is configured for \(chain) to follow it (or turn off ordersDependentActions)"
        case .cancelled: text = "cancelled"
        case .noNode(let chain): text = "no Ethereum node configured for \(chain)"
        case .emptyActionList: text = "no actions to sign"
        case .approvalRequired(let requirements):
            text =
                "held for approval by rule \(requirements.map(\.rule).joined(separator: ", ")); it is signed once approved"
        case .idempotencyKeyReused(let hash, let reason):
            text = "the idempotency key was used for transaction \(hash), which is not this action: \(reason)"
        }
        return prefix.isEmpty ? text : "\(prefix): \(text)"
    }
}

/// Where an account is registered: a backend's chains (`nil`: every `eip155` chain) and methods.
public struct AccountRegistration: Sendable, Hashable, CustomStringConvertible {
    /// The chains, sorted; `nil` for every `eip155` chain.
    public let chains: [ChainID]?
    /// The methods, sorted by name.
    public let methods: [RpcMethod]

    /// A registration.
    public init(chains: Set<ChainID>?, methods: Set<RpcMethod>) {
        self.chains = chains.map { $0.sorted { $0.description < $1.description } }
        self.methods = methods.sorted { $0.rawValue < $1.rawValue }
    }

    /// `eip155:1, eip155:8453 (personal_sign, eth_signTypedData_v4)`.
    public var description: String {
        let scope = chains.map { $0.map(\.description).joined(separator: ", ") } ?? "every eip155 chain"
        return "\(scope) (\(methods.map(\.rawValue).joined(separator: ", ")))"
    }
}

/// Why a backend could not be registered.
public enum RegistrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another backend already claims this account for an overlapping chain and method.
    case accountAlreadyClaimed(Address, by: String)
    /// The backend declares no accounts or no methods.
    case emptyClaim(String)
    /// The backend declares a chain that is not an `eip155` chain (SignerKit signs Ethereum chains only).
    case unsupportedChain(String, backend: String)
    /// The account would sign ``RpcMethod/sponsorTransaction`` beside other methods (in this registration or
    /// another): a payer's hash has no domain byte, so a payer key is registered for sponsoring alone.
    case sponsorKeyNotExclusive(Address, backend: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .accountAlreadyClaimed(let address, let other): "account \(address) is already claimed by backend \(other)"
        case .emptyClaim(let name): "backend \(name) claims no accounts or no methods"
        case .unsupportedChain(let chain, let name):
            "backend \(name) declares chain \(EchoedText.abbreviated(chain)), which is not an eip155 chain"
        case .sponsorKeyNotExclusive(let address, let name):
            "backend \(name): account \(address) may sign ronin_sponsorTransaction only if it signs nothing else "
                + "(a payer key is registered for sponsoring alone)"
        }
    }
}
