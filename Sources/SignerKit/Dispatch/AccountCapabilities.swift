import EthereumPrimitives

/// What an account can do on one chain, as EIP-5792's `wallet_getCapabilities` reports it: only the
/// `atomic` capability, the one SignerKit can back.
public struct AccountCapabilities: Sendable, Hashable {
    /// Whether a batch of calls from the account can execute atomically on the chain.
    public var atomic: AtomicCapability

    /// The capabilities `atomic`.
    public init(atomic: AtomicCapability) { self.atomic = atomic }

    /// The EIP-5792 object of one chain: `{"atomic":{"status":"supported"}}`.
    public var json: JSONValue {
        .object(JSONObject(["atomic": .object(JSONObject(["status": .string(atomic.rawValue)]))]))
    }
}

/// The three states of EIP-5792's `atomic` capability.
public enum AtomicCapability: String, Sendable, Hashable, CaseIterable {
    /// The account executes a batch of calls atomically now: a smart account, or an EOA delegated by
    /// EIP-7702 to a batch executor the dispatcher's ``AllowedDelegates`` policy allows.
    case supported
    /// An EOA without code whose key the dispatcher holds: one EIP-7702 authorization to a delegate the
    /// policy allows would make it ``supported``.
    case ready
    /// Neither: calls can only be sent one transaction after another.
    case unsupported
}

/// Why ``RpcDispatcher/capabilities(of:chains:deadline:)`` gave no answer.
public enum CapabilitiesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No backend is registered for the account, on any chain or method.
    case unknownAccount(Address)
    /// The chain is not an `eip155` chain: EIP-5792 capabilities are keyed by EIP-155 chain id.
    case unsupportedChain(ChainID)
    /// The chain's node did not answer `eth_getCode`, or answered something that is not code.
    case node(ChainID, NodeError)

    /// What went wrong, naming the account or chain.
    public var description: String {
        switch self {
        case .unknownAccount(let account): "no backend signs for \(account.checksummed)"
        case .unsupportedChain(let chain): "\(chain) is not an eip155 chain"
        case .node(let chain, let error): "\(chain): \(error)"
        }
    }
}
