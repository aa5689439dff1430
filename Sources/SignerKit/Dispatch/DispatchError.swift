import EthereumPrimitives

/// Why `RpcDispatcher.sign(actions:)` returned no bundle. Names the action index and method.
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
        /// No registered backend signs for this account on this chain with this method.
        case unknownAccount(Address)
        /// A chain id in the request differs from the action's CAIP-2 chain.
        case chainMismatch(field: String, expected: String, actual: String)
        /// The address in the params differs from the routed account.
        case accountMismatch(field: String, expected: Address, actual: Address)
        /// A policy refused the action.
        case policyViolation(policy: String, reason: String)
        /// The backend failed or returned something that does not verify.
        case backend(SignerError)
        /// `eth_sendTransaction` (or filling a transaction) needs a node for this chain and none is configured.
        case noNode(String)
        /// The action list is empty.
        case emptyActionList
    }

    /// Index of the action in the list (nil for list-level problems).
    public let index: Int?
    /// The action's method name, when known.
    public let method: String?
    /// What went wrong.
    public let kind: Kind

    /// Builds an error.
    public init(index: Int?, method: String?, kind: Kind) {
        self.index = index
        self.method = method
        self.kind = kind
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
        case .unknownAccount(let a): text = "no backend registered for account \(a)"
        case .chainMismatch(let field, let expected, let actual):
            text = "\(field) \(actual) differs from the action's chain \(expected)"
        case .accountMismatch(let field, let expected, let actual):
            text = "\(field) \(actual) differs from the routed account \(expected)"
        case .policyViolation(let policy, let reason): text = "refused by policy \(policy): \(reason)"
        case .backend(let error): text = "\(error)"
        case .noNode(let chain): text = "no Ethereum node configured for \(chain)"
        case .emptyActionList: text = "no actions to sign"
        }
        return prefix.isEmpty ? text : "\(prefix): \(text)"
    }
}

/// Why a backend could not be registered.
public enum RegistrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another backend already claims this account for an overlapping chain and method.
    case accountAlreadyClaimed(Address, by: String)
    /// The backend declares no accounts or no methods.
    case emptyClaim(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .accountAlreadyClaimed(let address, let other): "account \(address) is already claimed by backend \(other)"
        case .emptyClaim(let name): "backend \(name) claims no accounts or no methods"
        }
    }
}
