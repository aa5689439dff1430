import EthereumPrimitives
import Foundation

/// Limits over time (velocity) on what an account — or a caller, ``Scope/client`` — moves or lets others move:
/// per chain and asset (native value in wei, or an ERC-20 token in base units), per calendar window (a UTC day by
/// default) or rolling window, summed in a ``UsageCounterStore`` — SQLite for one signer service, PostgreSQL
/// when several share the limits. Above a limit the action is refused, or held for approvals
/// (``holdWhenExceeded``) and counted once they clear it.
///
/// A rolling window of W seconds sums buckets of W/24 (at least 60 s): a spend counts until it is at least W
/// old, and at most W + W/24 (the count errs on the payer's side, never the spender's).
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
public struct SpendLimit: UsagePolicy, ApprovalPolicy {
    /// Whose spending one row sums.
    public enum Scope: String, Sendable, Hashable {
        /// The account that moves the asset (a smart account's calls are the smart account's).
        case account
        /// The caller (``ResolvedRequest/caller``: the signer service's client), over every account it uses.
        case client
    }

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
    /// Whether the window rolls (the last ``windowSeconds``) rather than being a calendar window.
    public let rolling: Bool
    /// Whose spending is summed.
    public let scope: Scope
    /// What an action above a limit needs instead of a refusal (`nil`: refused).
    public let holdWhenExceeded: ApprovalRequirement?
    /// Where the sums are kept.
    public let store: any UsageCounterStore
    /// The wall clock windows are read from (inject one in tests).
    public let now: @Sendable () -> Date
    private let table: [Key: UInt256]

    /// `limits` per `scope` (account or caller) and window of `windowSeconds` (calendar, or `rolling`), summed in
    /// `store`; above a limit refused, or held for `holdWhenExceeded`'s approvals.
    public init(
        _ limits: [Limit], windowSeconds: UInt64 = 86_400, rolling: Bool = false, per scope: Scope = .account,
        holdWhenExceeded: ApprovalRequirement? = nil, store: any UsageCounterStore,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.limits = limits
        self.windowSeconds = max(1, windowSeconds)
        self.rolling = rolling
        self.scope = scope
        self.holdWhenExceeded = holdWhenExceeded
        self.store = store
        self.now = now
        var table: [Key: UInt256] = [:]
        for limit in limits { table[Key(chain: limit.chain, asset: limit.asset)] = limit.maximum }
        self.table = table
    }

    /// `SpendLimit`.
    public var name: String { "SpendLimit" }

    /// Fails an action that alone moves more than a limit (no window could admit it) unless the limit holds
    /// instead; fails a per-client limit's action that names no caller.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        let amounts = MovedAmount.of(request)
        if scope == .client, request.caller == nil, !amounts.isEmpty {
            return .fail(reason: "a limit per client needs the caller (prepare(actions:caller:admit:))")
        }
        guard holdWhenExceeded == nil, let (moved, maximum) = firstAbove(amounts) else { return .pass }
        return .fail(
            reason: "\(moved.amount.decimalString) of \(moved.asset) on \(moved.chain) is more than the "
                + "limit of \(maximum.decimalString) per \(windowSeconds) s")
    }

    /// The approvals an action that alone moves more than a limit needs, when the limit holds instead of refusing
    /// (an action that only exceeds what is left of the window is held when it is charged).
    public func requirement(for request: ResolvedRequest) -> ApprovalRequirement? {
        guard let holdWhenExceeded, firstAbove(MovedAmount.of(request)) != nil else { return nil }
        return holdWhenExceeded
    }

    /// The first of `amounts` above its limit, and the limit.
    private func firstAbove(_ amounts: [MovedAmount]) -> (MovedAmount, UInt256)? {
        for moved in amounts {
            if let maximum = table[Key(chain: moved.chain, asset: moved.asset)], moved.amount > maximum {
                return (moved, maximum)
            }
        }
        return nil
    }

    /// The bucket of a rolling window (W/24, at least 60 s), or the calendar window.
    private var rowSeconds: UInt64 { rolling ? max(60, windowSeconds / 24) : windowSeconds }

    /// One row per limited asset the action moves, of the account that moves it (a smart account's calls are
    /// the smart account's, not its submitter's) or of the caller, in the current window (a rolling window's
    /// current bucket, judged with the buckets before it).
    public func usages(of request: ResolvedRequest) -> [(charge: UsageCharge, limits: UsageLimits)] {
        let time = now().timeIntervalSince1970
        let windowStart = UsageWindow.start(of: time, seconds: rowSeconds)
        let sumsFrom =
            rolling ? UsageWindow.start(of: time - Double(windowSeconds), seconds: rowSeconds) : windowStart
        let kind = "\(rolling ? "rolling" : "calendar"):\(windowSeconds):\(scope.rawValue)"
        return MovedAmount.of(request).compactMap { moved in
            let key = Key(chain: moved.chain, asset: moved.asset)
            guard let maximum = table[key] else { return nil }
            let subject = scope == .client ? "client:" + (request.caller ?? "") : moved.account.lowercased
            let charge = UsageCharge(
                counter: "spend-limit:\(kind):\(key.chain):\(key.asset.description.lowercased())",
                subject: subject, windowStart: windowStart, amount: moved.amount, sumsFrom: sumsFrom)
            return (charge, UsageLimits(maximumCount: nil, maximumAmount: maximum))
        }
    }

    /// `account 0x… has moved 250 of 300 (native) in the window from …; this one (100) would exceed it`.
    public func refusal(of charge: UsageCharge, totals: UsageTotals, limits: UsageLimits) -> String {
        let asset = charge.counter.split(separator: ":").last.map(String.init) ?? "the asset"
        let who = scope == .client ? "client \(charge.subject.dropFirst("client:".count))" : "account \(charge.subject)"
        let window =
            rolling
            ? "in the last \(windowSeconds) s"
            : "in the window from \(SigningPreview.utcDate(UInt256(UInt64(charge.windowStart))))"
        return "\(who) has moved or allowed \(totals.amount.decimalString) of "
            + "\(limits.maximumAmount?.decimalString ?? "?") (\(asset)) \(window); this one "
            + "(\(charge.amount.decimalString)) would exceed it"
    }
}
