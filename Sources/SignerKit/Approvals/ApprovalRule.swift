import EthereumPrimitives

/// What a held action needs before it may be signed: `required` approvals from members of `group` (the
/// initiator never counts), within `lifetimeSeconds` of being held.
public struct ApprovalRequirement: Sendable, Hashable, Codable {
    /// The rule that asked for it (shown to the caller and the approvers).
    public let rule: String
    /// The approver group whose members count.
    public let group: String
    /// How many distinct members of `group` must approve (m of the group's n).
    public let required: Int
    /// How long the request may wait for them, in seconds; then it expires unsigned.
    public let lifetimeSeconds: UInt64

    /// `required` approvals of `group` within `lifetimeSeconds`, asked by `rule`.
    public init(rule: String, group: String, required: Int, lifetimeSeconds: UInt64) {
        self.rule = rule
        self.group = group
        self.required = max(1, required)
        self.lifetimeSeconds = max(1, lifetimeSeconds)
    }
}

/// A policy that may answer *hold for approval* instead of pass or fail: an action it holds is not signed
/// by ``RpcDispatcher/sign(_:idempotencyKey:deadline:)`` until ``HeldRequests`` (or the signer service) has the
/// approvals its ``ApprovalRequirement`` names. Its ``ActionPolicy/evaluate(_:)`` still refuses what must never
/// be signed.
public protocol ApprovalPolicy: ActionPolicy {
    /// The approvals `request` needs (`nil`: none; the request is signed at once when the other policies pass).
    func requirement(for request: ResolvedRequest) -> ApprovalRequirement?
}

/// Holds actions that move more than a threshold (native value, or an ERC-20 amount, counted from the preview
/// as ``SpendLimit`` counts it: transfers, approvals, permits, Permit2, ERC-3009, every call of a batch) until
/// `required` members of an approver group approve. Without thresholds it holds every action.
///
/// ```swift
/// ApprovalRule(
///     "large-payout", above: [.init(chain: base, asset: .token(usdc), above: 10_000_000_000)],
///     group: "treasury", required: 2, lifetimeSeconds: 3600)  // above 10,000 USDC: 2 of treasury within an hour
/// ```
public struct ApprovalRule: ApprovalPolicy {
    /// An amount above which an action is held.
    public struct Threshold: Sendable, Hashable {
        /// The chain.
        public let chain: ChainID
        /// The asset.
        public let asset: SpendLimit.Asset
        /// Actions that move more than this (exclusive) are held.
        public let above: UInt256

        /// Holds what moves more than `above` of `asset` on `chain`.
        public init(chain: ChainID, asset: SpendLimit.Asset, above: UInt256) {
            self.chain = chain
            self.asset = asset
            self.above = above
        }
    }

    /// The rule's name (in the `-32010` answer, the approval page and the audit).
    public let name: String
    /// The thresholds (empty: every action is held).
    public let thresholds: [Threshold]
    /// What a held action needs.
    public let requirement: ApprovalRequirement

    /// Holds actions above `thresholds` (every action when empty) until `required` of `group` approve, for at
    /// most `lifetimeSeconds`.
    public init(
        _ name: String, above thresholds: [Threshold] = [], group: String, required: Int,
        lifetimeSeconds: UInt64 = 3600
    ) {
        self.name = name
        self.thresholds = thresholds
        requirement = ApprovalRequirement(
            rule: name, group: group, required: required, lifetimeSeconds: lifetimeSeconds)
    }

    /// Passes: the rule holds, it never refuses.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision { .pass }

    /// The rule's requirement when `request` moves more than a threshold (always, without thresholds).
    public func requirement(for request: ResolvedRequest) -> ApprovalRequirement? {
        guard !thresholds.isEmpty else { return requirement }
        let moved = MovedAmount.of(request)
        let exceeds = thresholds.contains { threshold in
            moved.contains { $0.chain == threshold.chain && $0.asset == threshold.asset && $0.amount > threshold.above }
        }
        return exceeds ? requirement : nil
    }
}
