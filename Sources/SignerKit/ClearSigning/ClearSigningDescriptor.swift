import EthereumPrimitives

/// Why an ERC-7730 descriptor was refused; `path` names the place in the descriptor JSON
/// (`display.formats["transfer(address to,uint256 amount)"].fields[1].format`).
public struct ClearSigningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the descriptor.
    public let path: String
    /// What is wrong.
    public let problem: String

    /// An error.
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `descriptor display.formats…: problem`.
    public var description: String { "descriptor \(path.isEmpty ? "" : path + ": ")\(problem)" }
}

/// One ERC-7730 clear-signing descriptor: where it applies (an `eip712` or `contract` context with its
/// deployments) and how each message type or function is shown.
public struct ClearSigningDescriptor: Sendable {
    /// A contract the descriptor describes.
    public struct Deployment: Sendable, Hashable {
        /// EIP-155 chain id.
        public let chainId: UInt256
        /// Contract address (the typed data's `verifyingContract`, or the transaction's `to`).
        public let address: Address
    }

    /// Which signing context the descriptor covers.
    public enum Context: Sendable {
        /// EIP-712 messages of these contracts (and, when given, this domain name).
        case eip712(deployments: [Deployment], domainName: String?)
        /// Calls to these contracts.
        case contract(deployments: [Deployment])
    }

    /// How one value is shown.
    public enum DisplayFormat: Sendable, Equatable {
        /// The value as it is.
        case raw
        /// A native amount in wei, shown with 18 decimals and the chain's native symbol.
        case amount
        /// A token amount; the token is at `tokenPath` (or is the constant `token`); amounts of at least
        /// `threshold` (or unlimited ones) are shown as `message` (`Unlimited` by default).
        case tokenAmount(tokenPath: String?, token: Address?, threshold: UInt256?, message: String?)
        /// A date: `timestamp` (Unix seconds, shown as UTC) or `blockheight`.
        case date(blockHeight: Bool)
        /// Seconds shown as `1d 2h 3m 4s`.
        case duration
        /// An address (with the token's symbol when it is a known token).
        case addressName
        /// A value looked up in the descriptor's `metadata.enums`.
        case enumeration([String: String])
    }

    /// One shown field.
    public struct Field: Sendable {
        /// Where the value is (`#.details.amount`, `@.to`, or a plain `spender`).
        public let path: String
        /// The label shown.
        public let label: String
        /// How it is shown.
        public let format: DisplayFormat
    }

    /// How one message type or function is shown.
    public struct Format: Sendable {
        /// The key as written (`Permit`, an `encodeType` string, or `transfer(address to,uint256 amount)`).
        public let key: String
        /// The intent (`Send`, `Approve`).
        public let intent: String?
        /// The fields, in display order.
        public let fields: [Field]
        /// For a contract format: the selector and the named parameters of the signature.
        let function: FunctionSignature?
    }

    /// Where the descriptor applies.
    public let context: Context
    /// The formats by key.
    public let formats: [Format]
    /// Who wrote it (`metadata.owner`), for display.
    public let owner: String?
}
