import EthereumPrimitives
import Foundation

/// Limits over time (velocity) on what an account moves or lets others move: per chain and asset (native value
/// in wei, or an ERC-20 token in base units), per fixed window (a UTC calendar day by default), summed in a
/// ``UsageCounterStore`` — SQLite for one signer service, PostgreSQL when several share the limits.
///
/// Amounts come from the previews policies already judge: a transaction's native value, transfers, approvals
/// and `increaseAllowance`, EIP-2612 permits, Permit2 permits and transfers, ERC-3009 authorizations (an
/// approval counts what it lets a spender take, as ``TokenSpendCap`` counts), and every call of a batch. Each
/// asset an action moves is one row (account, chain, asset, window), charged just before the backend is asked,
/// in one store transaction per row, and taken back when the action fails: two dispatchers on one store never
/// admit more than the limit together.
///
/// ```swift
/// let limit = SpendLimit(
///     [.init(chain: base, asset: .token(usdc), maximum: 5_000_000_000)], store: store)  // 5,000 USDC a day
/// ```
public struct SpendLimit: UsagePolicy {
    /// What is counted.
    public enum Asset: Sendable, Hashable, CustomStringConvertible {
        /// The chain's native currency, in wei.
        case native
        /// An ERC-20 token, in base units.
        case token(Address)

        /// `native` or the token's address.
        public var description: String {
            switch self {
            case .native: "native"
            case .token(let token): token.checksummed
            }
        }
    }

    /// One limit.
    public struct Limit: Sendable, Hashable {
        /// The chain.
        public let chain: ChainID
        /// The asset.
        public let asset: Asset
        /// The most one account may move or allow per window, inclusive.
        public let maximum: UInt256

        /// At most `maximum` of `asset` on `chain` per account and window.
        public init(chain: ChainID, asset: Asset, maximum: UInt256) {
            self.chain = chain
            self.asset = asset
            self.maximum = maximum
        }
    }

    private struct Key: Hashable {
        let chain: ChainID
        let asset: Asset
    }

    /// The limits.
    public let limits: [Limit]
    /// The window, in seconds (86,400: a UTC calendar day).
    public let windowSeconds: UInt64
    /// Where the sums are kept.
    public let store: any UsageCounterStore
    /// The wall clock windows are read from (inject one in tests).
    public let now: @Sendable () -> Date
    private let table: [Key: UInt256]

    /// `limits` per account and window of `windowSeconds`, summed in `store`.
    public init(
        _ limits: [Limit], windowSeconds: UInt64 = 86_400, store: any UsageCounterStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.limits = limits
        self.windowSeconds = max(1, windowSeconds)
        self.store = store
        self.now = now
        var table: [Key: UInt256] = [:]
        for limit in limits { table[Key(chain: limit.chain, asset: limit.asset)] = limit.maximum }
        self.table = table
    }

    /// `SpendLimit`.
    public var name: String { "SpendLimit" }

    /// Fails an action that alone moves more than a limit (no window could admit it).
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        for moved in MovedAmount.of(request) {
            guard let maximum = table[Key(chain: moved.chain, asset: moved.asset)], moved.amount > maximum else {
                continue
            }
            return .fail(
                reason: "\(moved.amount.decimalString) of \(moved.asset) on \(moved.chain) is more than the "
                    + "limit of \(maximum.decimalString) per \(windowSeconds) s")
        }
        return .pass
    }

    /// One row per limited asset the action moves, of the account that moves it (a smart account's calls are
    /// the smart account's, not its submitter's), in the current window.
    public func usages(of request: ResolvedRequest) -> [(charge: UsageCharge, limits: UsageLimits)] {
        let windowStart = UsageWindow.start(of: now().timeIntervalSince1970, seconds: windowSeconds)
        return MovedAmount.of(request).compactMap { moved in
            let key = Key(chain: moved.chain, asset: moved.asset)
            guard let maximum = table[key] else { return nil }
            let charge = UsageCharge(
                counter: "spend-limit:\(windowSeconds):\(key.chain):\(key.asset.description.lowercased())",
                subject: moved.account.lowercased, windowStart: windowStart, amount: moved.amount)
            return (charge, UsageLimits(maximumCount: nil, maximumAmount: maximum))
        }
    }

    /// `account 0x… has moved 250 of 300 (native) on eip155:8453 in the window from …; this one (100) would exceed it`.
    public func refusal(of charge: UsageCharge, totals: UsageTotals, limits: UsageLimits) -> String {
        let asset = charge.counter.split(separator: ":").last.map(String.init) ?? "the asset"
        return "account \(charge.subject) has moved or allowed \(totals.amount.decimalString) of "
            + "\(limits.maximumAmount?.decimalString ?? "?") (\(asset)) in the window from "
            + "\(SigningPreview.utcDate(UInt256(UInt64(charge.windowStart)))); this one "
            + "(\(charge.amount.decimalString)) would exceed it"
    }
}
