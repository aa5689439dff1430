/// Actions the dispatcher resolved, admitted, routed and checked (preflight, policies, batch policies),
/// not yet signed: ``RpcDispatcher/prepare(actions:admit:)`` makes one and
/// ``RpcDispatcher/sign(_:idempotencyKey:deadline:)`` signs it. There is no public initializer, so a
/// prepared batch is always one the dispatcher checked.
public struct PreparedActions: Sendable {
    /// The actions, in order.
    public let actions: [WalletRpcAction]
    let prepared: [(ResolvedRequest, any WalletRpcSigner)]

    init(actions: [WalletRpcAction], prepared: [(ResolvedRequest, any WalletRpcSigner)]) {
        self.actions = actions
        self.prepared = prepared
    }

    /// The resolved requests, in action order (account, chain, method, payload and ``ResolvedRequest/preview``).
    public var requests: [ResolvedRequest] { prepared.map(\.0) }

    /// The name of the backend each action is routed to, in action order.
    public var backendNames: [String] { prepared.map { $0.1.name } }
}
