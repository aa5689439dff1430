import EthereumPrimitives
import EthereumTransactions

/// Caps what a transaction may pay for gas: the fee per gas (`gasPrice`, or `maxFeePerGas` for EIP-1559),
/// the EIP-1559 priority fee, and the total (gas limit × fee per gas), for given and node-filled values alike.
///
/// ```swift
/// RpcDispatcher(nodes: nodes) {
///     FeeCap(maxFeePerGas: UInt256(1_000_000_000_000), maxTotalFee: UInt256(100_000_000_000_000_000))  // 1,000 gwei; 0.1 ETH
///     GasLimitCap(maximumGas: 30_000_000)
/// }
/// ```
public struct FeeCap: FilledTransactionPolicy {
    /// The most wei per gas, inclusive (`nil`: no cap).
    public let maxFeePerGas: UInt256?
    /// The most EIP-1559 priority fee per gas, inclusive (`nil`: no cap; legacy gas prices are judged by
    /// ``maxFeePerGas`` alone).
    public let maxPriorityFeePerGas: UInt256?
    /// The most wei the gas may cost in all: gas limit × fee per gas, inclusive (`nil`: no cap).
    public let maxTotalFee: UInt256?

    /// A cap; pass `nil` for a limit you do not set.
    public init(maxFeePerGas: UInt256? = nil, maxPriorityFeePerGas: UInt256? = nil, maxTotalFee: UInt256? = nil) {
        self.maxFeePerGas = maxFeePerGas
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.maxTotalFee = maxTotalFee
    }

    /// Judges the fees the request gives (fees left to the node are judged once filled).
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard case .transaction(let transaction, _) = request.payload else { return .pass }
        let feePerGas = transaction.type.hasFeeMarket ? transaction.maxFeePerGas : transaction.gasPrice
        let tip = transaction.type.hasFeeMarket ? transaction.maxPriorityFeePerGas : nil
        return judge(feePerGas: feePerGas, tip: tip, gasLimit: transaction.gasLimit)
    }

    /// Judges the complete transaction.
    public func evaluate(filled transaction: Transaction, for request: ResolvedRequest) -> PolicyDecision {
        judge(
            feePerGas: transaction.gasFeeCap, tip: transaction.type.hasFeeMarket ? transaction.gasTipCap : nil,
            gasLimit: transaction.gasLimit)
    }

    private func judge(feePerGas: UInt256?, tip: UInt256?, gasLimit: UInt256?) -> PolicyDecision {
        if let cap = maxFeePerGas, let feePerGas, feePerGas > cap {
            return .fail(
                reason: "fee per gas \(feePerGas.decimalString) wei exceeds the cap of \(cap.decimalString) wei")
        }
        if let cap = maxPriorityFeePerGas, let tip, tip > cap {
            return .fail(
                reason: "priority fee per gas \(tip.decimalString) wei exceeds the cap of \(cap.decimalString) wei")
        }
        if let cap = maxTotalFee, let feePerGas, let gasLimit {
            guard let total = gasLimit.multiplied(by: feePerGas), total <= cap else {
                let shown = gasLimit.multiplied(by: feePerGas)?.decimalString ?? "more than 2^256"
                return .fail(
                    reason:
                        "gas \(gasLimit.decimalString) × \(feePerGas.decimalString) wei = \(shown) wei exceeds the total fee cap of \(cap.decimalString) wei"
                )
            }
        }
        return .pass
    }
}

/// Caps a transaction's gas limit, given or estimated by the node.
public struct GasLimitCap: FilledTransactionPolicy {
    /// The most gas, inclusive.
    public let maximumGas: UInt256

    /// Caps the gas limit at `maximumGas`.
    public init(maximumGas: UInt256) { self.maximumGas = maximumGas }

    /// Judges a given gas limit.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard case .transaction(let transaction, _) = request.payload, let gas = transaction.gasLimit else {
            return .pass
        }
        return judge(gas)
    }

    /// Judges the complete transaction's gas limit.
    public func evaluate(filled transaction: Transaction, for request: ResolvedRequest) -> PolicyDecision {
        judge(transaction.gasLimit)
    }

    private func judge(_ gas: UInt256) -> PolicyDecision {
        gas <= maximumGas
            ? .pass : .fail(reason: "gas limit \(gas.decimalString) exceeds the cap of \(maximumGas.decimalString)")
    }
}
