import EthereumPrimitives
import Foundation

/// Per-sender quotas of a Ronin payer (`ronin_sponsorTransaction`): how many transactions each player may
/// have sponsored, and how much gas × fee cap (wei) in all, per window (a UTC day by default), counted in a
/// ``UsageCounterStore`` — SQLite for one signer service, PostgreSQL when several share the quota.
///
/// Each payer on each chain has its own counters. A sponsorship is counted just before the payer signs and
/// taken back when signing fails.
public struct RoninSponsorQuota: UsagePolicy {
    /// The window, in seconds (86,400: a UTC calendar day).
    public let windowSeconds: UInt64
    /// The most sponsored transactions per sender per window, or `nil` for no count limit.
    public let maximumTransactions: UInt64?
    /// The largest sum of gas × `maxFeePerGas` (wei) per sender per window, or `nil` for no such limit.
    public let maximumGasCost: UInt256?
    /// Where the counts are kept.
    public let store: any UsageCounterStore
    /// The wall clock windows are read from (inject one in tests).
    public let now: @Sendable () -> Date

    /// A quota of `maximumTransactions` and `maximumGasCost` per sender per window of `windowSeconds`.
    public init(
        windowSeconds: UInt64 = 86_400, maximumTransactions: UInt64?, maximumGasCost: UInt256?,
        store: any UsageCounterStore, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.windowSeconds = windowSeconds
        self.maximumTransactions = maximumTransactions
        self.maximumGasCost = maximumGasCost
        self.store = store
        self.now = now
    }

    /// Fails a sponsorship whose gas cost alone is above the window's limit (no window could admit it).
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard let (charge, _) = usages(of: request).first, let maximumGasCost, charge.amount > maximumGasCost else {
            return .pass
        }
        return .fail(
            reason:
                "gas × maxFeePerGas \(charge.amount.decimalString) wei is above the per-sender limit of "
                + "\(maximumGasCost.decimalString) wei per \(windowSeconds) s")
    }

    /// One sponsored transaction of the sender, costing at most gas × `maxFeePerGas`, in the current window.
    public func usages(of request: ResolvedRequest) -> [(charge: UsageCharge, limits: UsageLimits)] {
        guard case .sponsorship(let transaction, _) = request.payload, let sender = transaction.from else { return [] }
        let cost = (transaction.gasLimit ?? .zero).multiplied(by: transaction.maxFeePerGas ?? .zero) ?? .max
        let charge = UsageCharge(
            counter: "ronin-sponsor:\(request.action.chainId):\(request.account.lowercased)",
            subject: sender.lowercased,
            windowStart: UsageWindow.start(of: now().timeIntervalSince1970, seconds: windowSeconds), amount: cost)
        return [(charge, UsageLimits(maximumCount: maximumTransactions, maximumAmount: maximumGasCost))]
    }

    /// `sender 0x… has used 5 of 5 sponsored transactions (…) in the window from 2026-…`.
    public func refusal(of charge: UsageCharge, totals: UsageTotals, limits: UsageLimits) -> String {
        var used: [String] = []
        if let count = limits.maximumCount { used.append("\(totals.count) of \(count) sponsored transactions") }
        if let amount = limits.maximumAmount {
            used.append("\(totals.amount.decimalString) of \(amount.decimalString) wei of gas × fee cap")
        }
        return "sender \(charge.subject) has used \(used.joined(separator: " and ")) in the window from "
            + "\(SigningPreview.utcDate(UInt256(UInt64(charge.windowStart)))); this one (\(charge.amount.decimalString) wei) "
            + "would exceed it"
    }
}
