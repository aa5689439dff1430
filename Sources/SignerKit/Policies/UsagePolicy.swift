import EthereumPrimitives

/// A policy that counts what it admits in a ``UsageCounterStore`` (a quota, a limit over time): besides its
/// stateless check (``ActionPolicy/evaluate(_:)``, while the batch is resolved), the dispatcher charges each
/// action it counts just before the backend is asked, in one store transaction, and takes the charge back
/// when the action then fails. Two dispatchers on one store never admit more than the limit together.
///
/// A charge stays when its action was signed but another action of the batch failed: nothing was given
/// out, and the count errs on the side of the payer.
public protocol UsagePolicy: ActionPolicy {
    /// Where the counts are kept.
    var store: any UsageCounterStore { get }

    /// What `request` adds to each row this policy counts it in, and the limits of that row's window: empty when
    /// this policy does not count it, several when it counts several things (one row per token moved, say). The
    /// dispatcher takes them in order, each in one store transaction; a refusal takes back the ones already taken.
    func usages(of request: ResolvedRequest) -> [(charge: UsageCharge, limits: UsageLimits)]

    /// Why `charge` was refused when its row stood at `totals`: the text of the policy violation.
    func refusal(of charge: UsageCharge, totals: UsageTotals, limits: UsageLimits) -> String

    /// What an action that would exceed a limit needs instead of a refusal: held for these approvals (`nil`:
    /// refused). Once a held request with them clears the batch, its charges are counted without the limit.
    var holdWhenExceeded: ApprovalRequirement? { get }
}

extension UsagePolicy {
    /// Refused when exceeded.
    public var holdWhenExceeded: ApprovalRequirement? { nil }
}

/// Fixed windows of `seconds` aligned to the Unix epoch (a day of 86,400 s is a UTC calendar day).
public enum UsageWindow {
    /// The start of the window of `seconds` that holds `unixTime`.
    public static func start(of unixTime: Double, seconds: UInt64) -> Int64 {
        let now = Int64(max(0, unixTime.rounded(.down)))
        let length = Int64(clamping: max(1, seconds))
        return now - now % length
    }
}
