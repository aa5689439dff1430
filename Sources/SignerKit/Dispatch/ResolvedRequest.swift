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
    /// The calls an ERC-7821 batch runs when this transaction goes from the account to itself and calls
    /// `execute` (the account's EIP-7702 delegate executes them): each as an `eth_sendTransaction` request of
    /// the account to the call's target, with the action's index. Policies judge every one of them as well as
    /// the transaction, and batch policies count them in its place (see docs/BATCHED-CALLS.md). Empty for
    /// anything else.
    public let calls: [ResolvedRequest]
    /// Who asked for it (the signer service's client), when the caller of
    /// ``RpcDispatcher/prepare(actions:caller:admit:)`` said: limits per caller count it (``SpendLimit``).
    public internal(set) var caller: String?
    /// For a batch `wallet_sendCalls` runs on an account that is not yet delegated: the executor the
    /// transaction's own authorization delegates to, signed by the account's key once its nonce is reserved.
    var selfDelegation: SelfDelegation?
    /// What the action really does (token, amount, spender, deadline, warnings); policies judge it.
    /// Computed on first use and kept, so a batch that no policy previews does not pay for it.
    public var preview: SigningPreview { lazyPreview.value }
    private let lazyPreview: LazyPreview

    /// A resolved request whose preview `previewer` makes when it is first asked for.
    init(
        index: Int, action: WalletRpcAction, method: RpcMethod, chainId: UInt256, account: Address, payload: Payload,
        node: (any EthereumNode)?, previewer: SigningPreviewer, calls: [ResolvedRequest] = []
    ) {
        self.index = index
        self.calls = calls
        self.action = action
        self.method = method
        self.chainId = chainId
        self.account = account
        self.payload = payload
        self.node = node
        lazyPreview = LazyPreview {
            var preview = previewer.preview(
                index: index, action: action, method: method, chainId: chainId, account: account, payload: payload)
            if !calls.isEmpty { preview.batch(calls.map(\.preview)) }
            return preview
        }
    }

    /// This request judged as running `calls` (a smart account's batch transaction, whose calls the account's
    /// backend encoded its own way): previewed as `batched-calls`, every call judged by the policies.
    func judged(as calls: [ResolvedRequest], previewer: SigningPreviewer) -> ResolvedRequest {
        var judged = ResolvedRequest(
            index: index, action: action, method: method, chainId: chainId, account: account, payload: payload,
            node: node, previewer: previewer, calls: calls)
        judged.selfDelegation = selfDelegation
        judged.caller = caller
        return judged
    }

    /// The native value a transaction (or a sponsored sender's transaction) moves (zero for messages).
    public var nativeValue: UInt256 {
        switch payload {
        case .transaction(let tx, _), .sponsorship(let tx, _): tx.value
        case .personalMessage, .typedData: .zero
        }
    }
}

/// The EIP-7702 authorization a transaction carries for its own sender: the account delegates to `delegate`
/// in the same transaction that first uses the delegation (its authorization names the transaction's nonce
/// + 1, since the sender's nonce is incremented before the tuple is applied).
struct SelfDelegation: Sendable {
    /// The executor delegated to.
    let delegate: Address
    /// The policy the authorization is signed under (the dispatcher's own).
    let policy: AllowedDelegates

    /// The one tuple a transaction with `nonce` from `account` on chain `chainId` may carry, or why `tuples`
    /// are not it.
    func mismatch(_ tuples: [SignedAuthorization], nonce: UInt256, account: Address, chainId: UInt256) -> String? {
        guard tuples.count == 1, let tuple = tuples.first else {
            return "the batch's own authorization: expected one tuple, got \(tuples.count)"
        }
        guard tuple.address == delegate, tuple.chainId == chainId, UInt256(tuple.nonce) == nonce.adding(UInt256(1))
        else {
            return
                "the batch's own authorization does not delegate to \(delegate.checksummed) at nonce + 1 on this chain"
        }
        guard (try? tuple.recoverAuthority()) == account else {
            return "the batch's own authorization is not signed by \(account.checksummed)"
        }
        return nil
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
