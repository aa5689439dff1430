import EIP712
import EthereumPrimitives
import EthereumTransactions
import Foundation

/// Computes the ``SigningPreview`` of resolved actions: decodes transactions, typed data and messages,
/// formats amounts with the token registry, renders with ERC-7730 descriptors, and flags warnings.
///
/// Deadlines are judged against ``now`` (inject a fixed clock in tests): further ahead than
/// ``farDeadlineThreshold`` (one year by default) is `far-deadline`, already passed is `expired`.
public struct SigningPreviewer: Sendable {
    /// One year, in seconds: the default ``farDeadlineThreshold``.
    public static let oneYear: UInt64 = 365 * 24 * 60 * 60

    /// Tokens formatted with symbol and decimals.
    public var tokens: TokenRegistry
    /// ERC-7730 descriptors that render matching typed data and calldata.
    public var descriptors: ClearSigningRegistry
    /// Deadlines more than this many seconds after ``now`` are flagged `far-deadline`.
    public var farDeadlineThreshold: UInt64
    /// The clock deadlines are judged against.
    public var now: @Sendable () -> Date

    /// A previewer with the built-in tokens, no descriptors, a one-year threshold and the system clock.
    public init(
        tokens: TokenRegistry = TokenRegistry(), descriptors: ClearSigningRegistry = ClearSigningRegistry(),
        farDeadlineThreshold: UInt64 = SigningPreviewer.oneYear, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.tokens = tokens
        self.descriptors = descriptors
        self.farDeadlineThreshold = farDeadlineThreshold
        self.now = now
    }

    /// The preview of one resolved request's payload.
    public func preview(
        index: Int, chain: ChainID, chainId: UInt256, method: RpcMethod, account: Address,
        payload: ResolvedRequest.Payload
    ) -> SigningPreview {
        var preview: SigningPreview
        let base = SigningPreview(
            index: index, chain: chain, chainName: KnownChains.name(of: chain), method: method, account: account,
            kind: .message)
        switch payload {
        case .personalMessage(let bytes, _):
            preview = MessagePreview.preview(bytes, base: base)
        case .typedData(let typedData, _):
            preview = TypedDataPreview.preview(typedData, chainId: chainId, base: base, tokens: tokens)
            if let rendered = descriptors.render(typedData: typedData, chainId: chainId, tokens: tokens) {
                preview.descriptorIntent = rendered.intent
                preview.fields = rendered.fields
            }
        case .sponsorship(let request, _):
            preview = transactionPreview(request, chainId: chainId, base: base)
            preview.sponsorship = PreviewSponsorship(request)
            if let expiry = request.expiredTime, expiry != 0 { preview.deadline = UInt256(expiry) }
            if request.expiredTime == 0 { preview.warnings.append(.noExpiry) }
            if let to = request.to, let from = request.from,
                let rendered = descriptors.render(
                    calldata: request.data, to: to, value: request.value, from: from, chainId: chainId, tokens: tokens)
            {
                preview.descriptorIntent = rendered.intent
                preview.fields = rendered.fields
            }
        case .transaction(let request, _):
            preview = transactionPreview(request, chainId: chainId, base: base)
            if let to = request.to,
                let rendered = descriptors.render(
                    calldata: request.data, to: to, value: request.value, from: account, chainId: chainId,
                    tokens: tokens)
            {
                preview.descriptorIntent = rendered.intent
                preview.fields = rendered.fields
            }
        }
        addWarnings(&preview)
        return preview
    }

    /// A formatted token amount.
    func amount(_ amount: UInt256, token: Address, chainId: UInt256) -> TokenAmount {
        tokens.amount(amount, chainId: chainId, token: token)
    }

    private func transactionPreview(_ tx: TransactionRequest, chainId: UInt256, base: SigningPreview)
        -> SigningPreview
    {
        var preview = base
        preview.nativeValue = tx.value
        preview.delegations = tx.authorizationList.map { PreviewDelegation($0, transactionChainId: chainId) }
        guard let to = tx.to else {
            preview.kind = .contractCreation
            return preview
        }
        preview.contract = to
        guard !tx.data.isEmpty else {
            preview.kind = .nativeTransfer
            preview.recipient = to
            return preview
        }
        preview.selector = tx.data.count >= 4 ? Array(tx.data[0..<4]) : nil
        guard let call = ERC20Calldata.decode(tx.data) else {
            preview.kind = .contractCall
            return preview
        }
        switch call {
        case .transfer(let recipient, let value):
            preview.kind = .erc20Transfer
            preview.recipient = recipient
            preview.tokens = [amount(value, token: to, chainId: chainId)]
        case .approve(let spender, let value):
            preview.kind = .erc20Approve
            preview.spender = spender
            preview.tokens = [amount(value, token: to, chainId: chainId)]
        case .transferFrom(let from, let recipient, let value):
            preview.kind = .erc20TransferFrom
            preview.owner = from
            preview.recipient = recipient
            preview.tokens = [amount(value, token: to, chainId: chainId)]
        case .increaseAllowance(let spender, let value):
            preview.kind = .erc20IncreaseAllowance
            preview.spender = spender
            preview.tokens = [amount(value, token: to, chainId: chainId)]
        }
        return preview
    }

    /// The unlimited threshold: 2^255.
    static let unlimitedThreshold = UInt256.powerOfTwo(255)
    /// The Permit2 `uint160` maximum, 2^160 − 1.
    static let permit2Maximum = UInt256(limbs: (.max, .max, 0xFFFF_FFFF, 0))

    /// Whether `amount` is unlimited: at least 2^255, or exactly 2^160 − 1.
    public static func isUnlimited(_ amount: UInt256) -> Bool {
        amount >= unlimitedThreshold || amount == permit2Maximum
    }

    private func addWarnings(_ preview: inout SigningPreview) {
        var warnings: [PreviewWarning] = []
        if preview.tokens.contains(where: { Self.isUnlimited($0.amount) }) { warnings.append(.unlimitedAmount) }
        if let deadline = preview.deadline {
            let nowSeconds = UInt64(max(0, now().timeIntervalSince1970))
            if deadline > UInt256(nowSeconds &+ farDeadlineThreshold) {
                warnings.append(.farDeadline)
            } else if deadline < UInt256(nowSeconds) {
                warnings.append(.expired)
            }
        }
        if let owner = preview.owner, owner != preview.account,
            preview.kind != .erc20TransferFrom
        {
            warnings.append(.ownerMismatch)
        }
        if !preview.isRecognized { warnings.append(.unrecognized) }
        preview.warnings = warnings + preview.warnings.filter { !warnings.contains($0) }
    }
}

extension SigningPreviewer {
    /// The preview of an action being resolved.
    func preview(
        index: Int, action: WalletRpcAction, method: RpcMethod, chainId: UInt256, account: Address,
        payload: ResolvedRequest.Payload
    ) -> SigningPreview {
        preview(
            index: index, chain: action.chainId, chainId: chainId, method: method, account: account, payload: payload)
    }
}
