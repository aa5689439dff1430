import EthereumPrimitives

/// At most this much of a token per chain, summed over the batch: ERC-20 transfers, `transferFrom`s,
/// approvals and `increaseAllowance`, EIP-2612 permits, Permit2 permits and transfers, and ERC-3009
/// authorizations all count their amount (an approval counts what it lets a spender take).
///
/// Evaluated on the whole batch before anything is signed (a ``BatchPolicy``); the refusal names the
/// action whose amount takes the sum over the cap. Tokens without a cap pass unless
/// ``refusesOtherTokens`` is set.
public struct TokenSpendCap: BatchPolicy {
    /// One cap.
    public struct Cap: Sendable, Hashable {
        /// The chain.
        public let chain: ChainID
        /// The token contract.
        public let token: Address
        /// The most base units the batch may move or allow, inclusive.
        public let maximum: UInt256

        /// A cap of `maximum` base units of `token` on `chain`.
        public init(chain: ChainID, token: Address, maximum: UInt256) {
            self.chain = chain
            self.token = token
            self.maximum = maximum
        }
    }

    private struct Key: Hashable {
        let chain: ChainID
        let token: Address
    }

    /// The caps.
    public let caps: [Cap]
    /// Whether an amount of a token without a cap is refused.
    public let refusesOtherTokens: Bool
    private let table: [Key: UInt256]

    /// Caps `caps`; with `refusesOtherTokens`, any token without a cap is refused.
    public init(_ caps: [Cap], refusesOtherTokens: Bool = false) {
        self.caps = caps
        self.refusesOtherTokens = refusesOtherTokens
        var table: [Key: UInt256] = [:]
        for cap in caps { table[Key(chain: cap.chain, token: cap.token)] = cap.maximum }
        self.table = table
    }

    /// Sums each chain and token over the batch, in action order.
    public func evaluate(batch previews: [SigningPreview]) -> BatchDecision {
        var sums: [Key: UInt256] = [:]
        for preview in previews where preview.kind.movesTokens {
            for moved in preview.tokens {
                let key = Key(chain: preview.chain, token: moved.token)
                guard let cap = table[key] else {
                    if refusesOtherTokens {
                        return .fail(
                            index: preview.index,
                            reason:
                                "token \(moved.tokenName) (\(moved.token.checksummed)) on \(preview.chain) has no cap (\(preview.kind.rawValue))"
                        )
                    }
                    continue
                }
                let total = sums[key, default: .zero].adding(moved.amount) ?? .max
                sums[key] = total
                if total > cap {
                    return .fail(
                        index: preview.index,
                        reason:
                            "\(preview.kind.rawValue) of \(moved.display) brings the batch's total of \(moved.tokenName) on \(preview.chain) to \(moved.display(of: total)), over the cap of \(moved.display(of: cap))"
                    )
                }
            }
        }
        return .pass
    }
}
