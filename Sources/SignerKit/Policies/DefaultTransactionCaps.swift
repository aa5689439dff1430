import EthereumPrimitives

/// The fee and gas caps every transaction meets unless the caller sets others: 1,000 gwei per gas, 0.1 ETH
/// of gas in all, 30,000,000 gas. `signerkit sign`, `pay` and `signerkit serve` apply them, so a node that
/// fills absurd fees (or a request that gives them) is refused rather than signed.
public enum DefaultTransactionCaps {
    /// 1,000 gwei: the most fee per gas (`gasPrice`, or `maxFeePerGas`).
    public static let maxFeePerGas = UInt256(1_000_000_000_000)
    /// 0.1 ETH: the most gas limit × fee per gas.
    public static let maxTotalFee = UInt256(100_000_000_000_000_000)
    /// The most gas.
    public static let maximumGas = UInt256(30_000_000)

    /// `policies` with the defaults filled in: a ``FeeCap`` keeps the limits it sets and takes the default for
    /// each it leaves unset (the fee per gas and the total; the priority fee has no default), one is added when
    /// there is none, and a ``GasLimitCap`` is added when there is none. The other policies keep their order;
    /// the caps come last.
    public static func applied(to policies: [any ActionPolicy]) -> [any ActionPolicy] {
        var others: [any ActionPolicy] = []
        var fee: FeeCap?
        var gas: GasLimitCap?
        for policy in policies {
            if let cap = policy as? FeeCap, fee == nil {
                fee = cap
            } else if let cap = policy as? GasLimitCap, gas == nil {
                gas = cap
            } else {
                others.append(policy)
            }
        }
        return others + [
            FeeCap(
                maxFeePerGas: fee?.maxFeePerGas ?? maxFeePerGas, maxPriorityFeePerGas: fee?.maxPriorityFeePerGas,
                maxTotalFee: fee?.maxTotalFee ?? maxTotalFee),
            gas ?? GasLimitCap(maximumGas: maximumGas),
        ]
    }
}
