import EthereumPrimitives

/// Names of widely used EVM chains, by EIP-155 chain id.
public enum KnownChains {
    /// Chain id → display name.
    public static let names: [UInt64: String] = [
        1: "Ethereum", 10: "OP Mainnet", 56: "BNB Smart Chain", 100: "Gnosis", 137: "Polygon", 324: "zkSync Era",
        8453: "Base", 42161: "Arbitrum One", 42220: "Celo", 43114: "Avalanche C-Chain", 59144: "Linea",
        534352: "Scroll", 11_155_111: "Sepolia", 84532: "Base Sepolia",
    ]

    /// The name of `chain`, when it is a known `eip155` chain.
    public static func name(of chain: ChainID) -> String? {
        guard chain.isEIP155, let id = chain.eip155ChainIDUInt64 else { return nil }
        return names[id]
    }
}
