/// The verdict of a batch policy: pass, or refuse naming the action that crosses the line.
public enum BatchDecision: Sendable, Equatable {
    /// The batch may be signed.
    case pass
    /// Nothing in the batch may be signed; `index` is the action that broke the rule.
    case fail(index: Int, reason: String)
}

/// A policy that judges the whole batch at once, from every action's ``SigningPreview`` (a cap summed
/// over the batch, like ``TokenSpendCap``).
///
/// The dispatcher runs it in phase 1, after every action was resolved and passed its per-action policies
/// (``ActionPolicy/evaluate(_:)``, which defaults to pass for batch policies) and before any backend is
/// called: a refusal means nothing of the batch is signed.
public protocol BatchPolicy: ActionPolicy {
    /// Decides on the batch, given every action's preview in action order.
    func evaluate(batch previews: [SigningPreview]) -> BatchDecision
}

extension BatchPolicy {
    /// A batch policy passes each action alone; it decides in ``evaluate(batch:)``.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision { .pass }
}
