import EthereumTransactions

/// A policy that also judges a transaction once its nonce, gas and fees are filled, right before it is
/// signed: node-suggested values pass through it exactly as values the request gave.
///
/// Its ``ActionPolicy/evaluate(_:)`` runs first, on the request as given (so a request that already breaks
/// the rule is refused before anything is signed); ``evaluate(filled:for:)`` then runs on the complete
/// transaction that SignerKit's key backends are about to sign. Backends that fill transactions on their
/// side (a hosted wallet) are judged on the request alone.
public protocol FilledTransactionPolicy: ActionPolicy {
    /// Decides on the complete transaction about to be signed for `request`.
    func evaluate(filled transaction: Transaction, for request: ResolvedRequest) -> PolicyDecision
}
