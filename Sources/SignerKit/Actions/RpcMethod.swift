/// The wallet RPC methods SignerKit signs.
public enum RpcMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// EIP-712 typed data; params `[address, typedData]`.
    case signTypedDataV4 = "eth_signTypedData_v4"
    /// EIP-191 personal message; params `[message, address]`.
    case personalSign = "personal_sign"
    /// Sign and broadcast a transaction; params `[transaction]`; the result is the transaction hash.
    case sendTransaction = "eth_sendTransaction"
    /// Sign a transaction without broadcasting; params `[transaction]`; the result is the raw transaction.
    case signTransaction = "eth_signTransaction"

    /// The wire name.
    public var description: String { rawValue }
}
