import EIP712
import EthereumPrimitives
import EthereumTransactions

/// One action after parsing and validation: what the backend is asked to do.
public struct ResolvedRequest: Sendable {
    /// What to sign, parsed from the params.
    public enum Payload: Sendable {
        /// `personal_sign`: the message bytes (0x-hex params are bytes, other text UTF-8) and their EIP-191 digest.
        case personalMessage(bytes: [UInt8], digest: Digest32)
        /// `eth_signTypedData_v4`: the document and its hashes, computed by SignerKit.
        case typedData(TypedData, hashes: TypedDataHashes)
        /// `eth_sendTransaction` / `eth_signTransaction`: the transaction as requested (nonce, gas and fees may
        /// be missing). `feesOpen` is true when the request named neither a type nor any fee, so the backend
        /// may pick EIP-1559 fees.
        case transaction(TransactionRequest, feesOpen: Bool)
    }

    /// Position in the action list.
    public let index: Int
    /// The original action.
    public let action: WalletRpcAction
    /// The method.
    public let method: RpcMethod
    /// The numeric EIP-155 chain id of the action's CAIP-2 chain.
    public let chainId: UInt256
    /// The account that signs (from the params).
    public let account: Address
    /// What to sign.
    public let payload: Payload
    /// The node for this chain, if the dispatcher has one (needed to fill and broadcast transactions).
    public let node: (any EthereumNode)?
    /// What the action really does (token, amount, spender, deadline, warnings), computed once when the
    /// action is resolved; policies judge it.
    public let preview: SigningPreview
    /// What the actions of this request's batch share (journal, nonces used, broadcasts); set by the
    /// dispatcher before any backend is called.
    var batch: BatchContext?

    /// The native value a transaction moves (zero for messages).
    public var nativeValue: UInt256 {
        if case .transaction(let tx, _) = payload { return tx.value }
        return .zero
    }
}
