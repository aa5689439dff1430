import EthereumPrimitives

/// Which block a state query reads (the JSON-RPC "default block parameter").
public enum BlockTag: Sendable, Hashable, CustomStringConvertible {
    /// The most recent block.
    case latest
    /// The pending state: the latest block plus the node's pending transactions.
    case pending
    /// The genesis block.
    case earliest
    /// The most recent block the consensus layer considers safe.
    case safe
    /// The most recent finalized block.
    case finalized
    /// The block with this number.
    case number(UInt256)

    /// The parameter as sent: `"latest"`, …, or a hex quantity.
    public var jsonValue: JSONValue { .string(description) }

    /// The wire form: a tag name or a `0x` quantity.
    public var description: String {
        switch self {
        case .latest: "latest"
        case .pending: "pending"
        case .earliest: "earliest"
        case .safe: "safe"
        case .finalized: "finalized"
        case .number(let n): n.hexQuantity
        }
    }
}
