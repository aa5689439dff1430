import EIP712
import EthereumPrimitives
import EthereumTransactions
import Synchronization

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
        /// `ronin_sponsorTransaction`: a sender's complete type `0x64` request (`from` the sender, `payer` the
        /// routed account, no payer signature yet) and the hash the payer signs, computed by SignerKit.
        case sponsorship(TransactionRequest, payerHash: Bytes32)
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
    /// What the action really does (token, amount, spender, deadline, warnings); policies judge it.
    /// Computed on first use and kept, so a batch that no policy previews does not pay for it.
    public var preview: SigningPreview { lazyPreview.value }
    private let lazyPreview: LazyPreview

    /// A resolved request whose preview `previewer` makes when it is first asked for.
    init(
        index: Int, action: WalletRpcAction, method: RpcMethod, chainId: UInt256, account: Address, payload: Payload,
        node: (any EthereumNode)?, previewer: SigningPreviewer
    ) {
        self.index = index
        self.action = action
        self.method = method
        self.chainId = chainId
        self.account = account
        self.payload = payload
        self.node = node
        lazyPreview = LazyPreview {
            previewer.preview(
                index: index, action: action, method: method, chainId: chainId, account: account, payload: payload)
        }
    }

    /// The native value a transaction (or a sponsored sender's transaction) moves (zero for messages).
    public var nativeValue: UInt256 {
        switch payload {
        case .transaction(let tx, _), .sponsorship(let tx, _): tx.value
        case .personalMessage, .typedData: .zero
        }
    }
}

/// A preview made on first use, then kept (shared by the copies of one request).
private final class LazyPreview: Sendable {
    private let make: @Sendable () -> SigningPreview
    private let made = Mutex<SigningPreview?>(nil)

    init(_ make: @escaping @Sendable () -> SigningPreview) { self.make = make }

    var value: SigningPreview {
        if let known = made.withLock({ $0 }) { return known }
        let fresh = make()
        return made.withLock { state in
            if let known = state { return known }
            state = fresh
            return fresh
        }
    }
}
