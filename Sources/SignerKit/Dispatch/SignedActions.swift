import EthereumPrimitives

/// The complete, ordered results of one `RpcDispatcher.sign(actions:)` call.
///
/// Only the dispatcher can create one (there is no public initializer), and it does so only
/// after every action produced a result that it verified (a signature must be low-s and recover to
/// the routed account over SignerKit's own digest; the result kind must match the method), so a
/// value of this type is never partial, misordered or wrong. Results signed elsewhere enter a bundle
/// only through ``verifying(actions:results:)``, which runs the same checks. It remembers which actions it answers, so a consumer such as Pay's
/// `confirmPayment` can refuse a bundle made for another option.
public struct SignedActions: Sendable, Equatable {
    /// The actions, in the order given.
    public let actions: [WalletRpcAction]
    /// One outcome per action, same order.
    public let outcomes: [ActionResult]

    init(actions: [WalletRpcAction], outcomes: [ActionResult]) {
        precondition(actions.count == outcomes.count, "one outcome per action")
        self.actions = actions
        self.outcomes = outcomes
    }

    /// One `0x…` string per action, in action order: a signature (r‖s‖v, v = 27/28), the transaction
    /// hash for `eth_sendTransaction`, or the raw transaction for `eth_signTransaction`.
    public var results: [String] { outcomes.map(\.resultString) }

    /// Number of actions answered.
    public var count: Int { actions.count }

    /// True when this bundle answers exactly `actions`, in that order.
    public func answers(_ actions: [WalletRpcAction]) -> Bool { self.actions == actions }
}
