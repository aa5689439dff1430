import EthereumPrimitives

/// What one account moves or lets others move of one asset on one chain, summed over an action: the amounts
/// limits over time (``SpendLimit``) count and approval rules (``ApprovalRule``) compare with their thresholds.
struct MovedAmount: Sendable, Hashable {
    /// The account the asset leaves (a smart account's calls are the smart account's, not its submitter's).
    let account: Address
    /// The chain.
    let chain: ChainID
    /// The asset.
    let asset: SpendLimit.Asset
    /// The amount, summed over the action (saturating).
    let amount: UInt256

    /// What `request` moves or allows, per account, chain and asset, in first-seen order (a batch's calls in
    /// their place), from the previews policies judge: a transaction's native value, and the token amounts of
    /// every preview that moves tokens (transfers, approvals, permits, Permit2, ERC-3009).
    static func of(_ request: ResolvedRequest) -> [MovedAmount] {
        // A personal message moves nothing (no preview needed to know it); a sponsorship moves nothing of the
        // sponsor's.
        if case .personalMessage = request.payload { return [] }
        guard request.method != .sponsorTransaction else { return [] }
        struct Row: Hashable {
            let account: Address
            let chain: ChainID
            let asset: SpendLimit.Asset
        }
        var order: [Row] = []
        var sums: [Row: UInt256] = [:]
        func add(_ row: Row, _ amount: UInt256) {
            guard !amount.isZero else { return }
            if sums[row] == nil { order.append(row) }
            sums[row] = sums[row, default: .zero].adding(amount) ?? .max
        }
        for preview in RpcDispatcher.judgedPreviews(of: request) {
            add(Row(account: preview.account, chain: preview.chain, asset: .native), preview.nativeValue)
            guard preview.kind.movesTokens else { continue }
            for token in preview.tokens {
                add(Row(account: preview.account, chain: preview.chain, asset: .token(token.token)), token.amount)
            }
        }
        return order.map {
            MovedAmount(account: $0.account, chain: $0.chain, asset: $0.asset, amount: sums[$0] ?? .zero)
        }
    }
}
