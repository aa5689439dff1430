import EthereumPrimitives
import EthereumTransactions

/// Actions built from typed values, so code that signs needs no hand-written JSON. Each gives exactly the
/// params a wallet receives for the method; the dispatcher reads them back like any other action.
extension WalletRpcAction {
    /// An action for a known method with params given as parsed JSON (an array).
    public init(chainId: ChainID, method: RpcMethod, params: JSONValue) {
        self.init(chainId: chainId, method: method.rawValue, params: params.serialized)
    }

    /// `personal_sign` of `message` (any bytes) by `account`: params `["0x…", account]`.
    public static func personalSign(message: [UInt8], account: Address, chain: ChainID) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: .personalSign,
            params: .array([.string(Hex.encode(message)), .string(account.checksummed)]))
    }

    /// `personal_sign` of the UTF-8 bytes of `message`, sent hex-encoded: text that happens to look like
    /// hex (`"0x1234"`) is signed as the characters it is, never as the bytes it spells.
    public static func personalSign(message: String, account: Address, chain: ChainID) -> WalletRpcAction {
        personalSign(message: Array(message.utf8), account: account, chain: chain)
    }

    /// `eth_signTypedData_v4` of the EIP-712 document `typedData` (`{types, primaryType, domain, message}`) by
    /// `account`: params `[account, typedData]`.
    public static func signTypedData(_ typedData: JSONValue, account: Address, chain: ChainID) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: .signTypedDataV4, params: .array([.string(account.checksummed), typedData]))
    }

    /// `eth_sendTransaction` of `transaction` (its `from` is the account that signs): params `[transaction]`.
    public static func sendTransaction(_ transaction: TransactionRequest, chain: ChainID) -> WalletRpcAction {
        WalletRpcAction(chainId: chain, method: .sendTransaction, params: .array([transaction.json]))
    }

    /// `eth_signTransaction` of `transaction` (signed, not broadcast): params `[transaction]`.
    public static func signTransaction(_ transaction: TransactionRequest, chain: ChainID) -> WalletRpcAction {
        WalletRpcAction(chainId: chain, method: .signTransaction, params: .array([transaction.json]))
    }
}
