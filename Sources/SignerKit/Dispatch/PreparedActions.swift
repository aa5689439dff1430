/// Actions the dispatcher resolved, admitted, routed and checked (preflight, policies, batch policies),
/// not yet signed: ``RpcDispatcher/prepare(actions:caller:admit:)`` makes one and
/// ``RpcDispatcher/sign(_:idempotencyKey:deadline:)`` signs it. There is no public initializer, so a
/// prepared batch is always one the dispatcher checked.
public struct PreparedActions: Sendable {
    /// The actions, in order.
    public let actions: [WalletRpcAction]
    var prepared: [RoutedAction]
    /// The approvals ``ApprovalPolicy`` rules ask of these actions before they may be signed (one per rule, in
    /// policy order): while it is not empty, ``RpcDispatcher/sign(_:idempotencyKey:deadline:)`` signs only
    /// the batch ``approved(by:)`` returns.
    public internal(set) var approvalRequirements: [ApprovalRequirement]
    /// The held request whose approvals cleared these actions.
    var approvedBy: String?
    /// The rules of its approvals.
    var approvedRules: Set<String> = []

    init(actions: [WalletRpcAction], prepared: [RoutedAction], approvalRequirements: [ApprovalRequirement] = []) {
        self.actions = actions
        self.prepared = prepared
        self.approvalRequirements = approvalRequirements
    }

    /// The resolved requests, in action order (account, chain, method, payload and ``ResolvedRequest/preview``).
    public var requests: [ResolvedRequest] { prepared.map(\.request) }

    /// The name of the backend each action is routed to, in action order.
    public var backendNames: [String] { prepared.map(\.backend.name) }
}

/// One resolved action and where it goes: the backend it is routed to and, for a transaction the dispatcher's
/// ``TransactionPipeline`` fills, signs and sends, who signs in it.
struct RoutedAction: Sendable {
    var request: ResolvedRequest
    let backend: any WalletRpcSigner
    let pipelineSigner: PipelineSigner?
}
