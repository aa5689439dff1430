import EthereumPrimitives
import Foundation
import Synchronization

/// Routes wallet RPC actions to registered backends and returns their results in action order.
///
/// ```swift
/// let dispatcher = RpcDispatcher(nodes: [base: node]) {
///     AllowedChains([base])
///     NativeValueCap(maximumWei: 10_000_000_000_000_000)
/// }
/// try dispatcher.register(softwareKey)            // any PrehashSigner
/// try dispatcher.register(waypointSigner)         // any WalletRpcSigner
/// let signed = try await dispatcher.sign(actions: actions)
/// signed.results                                  // one 0x… string per action, in order
/// ```
///
/// Every action is parsed, checked against its chain and account, and passed through the policies
/// before any backend is called; one bad action means nothing is signed. Backends then run
/// concurrently and fill result slots by index; every result is verified before it may enter the
/// bundle (a signature must be low-s and recover to the routed account over SignerKit's own digest);
/// a failure cancels the rest and no bundle escapes. Transactions of one account on one chain run one
/// after another in action order, so each gets the next nonce, and an action that follows an
/// `eth_sendTransaction` of its account waits until that transaction is mined with status 1
/// (see docs/DISPATCHER.md).
public final class RpcDispatcher: Sendable {
    private struct Route: Sendable {
        let backend: any WalletRpcSigner
        /// The same backend when it checks requests in phase 1 (cast once, at registration).
        let preflight: (any PreflightChecked)?
        /// The key, when the backend is a registered key (cast once, at registration).
        let key: (any PrehashSigner)?
        /// The same backend when it signs filled transactions (cast once, at registration).
        let filledSigner: (any FilledTransactionSigner)?
        let account: Address
        let chains: Set<ChainID>?
        let methods: Set<RpcMethod>

        func matches(chain: ChainID, method: RpcMethod) -> Bool {
            methods.contains(method) && (chains?.contains(chain) ?? true)
        }

        func overlaps(_ other: Route) -> Bool {
            guard account == other.account, !methods.isDisjoint(with: other.methods) else { return false }
            switch (chains, other.chains) {
            case (let a?, let b?): return !a.isDisjoint(with: b)
            default: return true
            }
        }
    }

    private let routes = Mutex<[Address: [Route]]>([:])
    /// The byte-identified journal identities of the batches running now.
    let liveIdentities = LiveIdentities()
    let policies: [any ActionPolicy]
    let filledTransactionPolicies: [any FilledTransactionPolicy]
    let batchPolicies: [any BatchPolicy]
    let usagePolicies: [any UsagePolicy]
    let approvalPolicies: [any ApprovalPolicy]
    let nodes: [ChainID: any EthereumNode]
    /// How batches are sequenced, confirmed and journalled.
    public let configuration: DispatchConfiguration

    /// A dispatcher with nodes for the chains whose transactions it may fill, broadcast and follow, a
    /// configuration (dependent actions, receipts, journal), and policies evaluated on every action before
    /// anything is signed.
    public init(
        nodes: [ChainID: any EthereumNode] = [:], configuration: DispatchConfiguration = DispatchConfiguration(),
        @PolicyBuilder policies: () -> [any ActionPolicy] = { [] }
    ) {
        self.nodes = nodes
        self.configuration = configuration
        let policies = policies()
        self.policies = policies
        filledTransactionPolicies = policies.compactMap { $0 as? any FilledTransactionPolicy }
        batchPolicies = policies.compactMap { $0 as? any BatchPolicy }
        usagePolicies = policies.compactMap { $0 as? any UsagePolicy }
        approvalPolicies = policies.compactMap { $0 as? any ApprovalPolicy }
    }

    /// Registers a whole-method backend for each of its accounts. Fails when another backend already
    /// claims one of those accounts for an overlapping chain and method, or when it declares a chain that
    /// is not an `eip155` chain.
    public func register(_ backend: any WalletRpcSigner) throws(RegistrationError) {
        guard !backend.accounts.isEmpty, !backend.methods.isEmpty else { throw .emptyClaim(backend.name) }
        if let foreign = backend.chains?.first(where: { !$0.isEIP155 || $0.eip155ChainID == nil }) {
            throw .unsupportedChain(foreign.description, backend: backend.name)
        }
        let preflight = backend as? any PreflightChecked
        let key = (backend as? PrehashBackend)?.key
        let filledSigner = backend as? any FilledTransactionSigner
        let newRoutes = backend.accounts.map {
            Route(
                backend: backend, preflight: preflight, key: key, filledSigner: filledSigner, account: $0,
                chains: backend.chains,
                methods: backend.methods)
        }
        try routes.withLock { (table: inout [Address: [Route]]) throws(RegistrationError) in
            for route in newRoutes {
                if let clash = table[route.account, default: []].first(where: { $0.overlaps(route) }) {
                    throw .accountAlreadyClaimed(route.account, by: clash.backend.name)
                }
                // A payer's hash has no domain byte: its key signs sponsorships and nothing else.
                let others = table[route.account, default: []].map(\.methods)
                if others.contains(where: { $0.contains(.sponsorTransaction) })
                    || (route.methods.contains(.sponsorTransaction) && (route.methods.count > 1 || !others.isEmpty))
                {
                    throw .sponsorKeyNotExclusive(route.account, backend: backend.name)
                }
            }
            for route in newRoutes { table[route.account, default: []].append(route) }
        }
    }

    /// Registers a key: by default it gets every method SignerKit implements on top of ``PrehashSigner`` for
    /// the key's own account (``RpcMethod/accountMethods``). A payer key of Ronin sponsored transactions is
    /// registered with `methods: [.sponsorTransaction]` and nothing else.
    public func register(
        _ key: any PrehashSigner, chains: Set<ChainID>? = nil, methods: Set<RpcMethod> = RpcMethod.accountMethods
    ) throws(RegistrationError) {
        try register(PrehashBackend(key, chains: chains, methods: methods))
    }

    /// The names of the registered backends.
    public var backendNames: Set<String> { routes.withLock { Set($0.values.joined().map(\.backend.name)) } }

    /// The backend that would sign for `account` on `chain` with `method`.
    public func backend(for account: Address, chain: ChainID, method: RpcMethod) -> (any WalletRpcSigner)? {
        route(for: account, chain: chain, method: method)?.backend
    }

    private func route(for account: Address, chain: ChainID, method: RpcMethod) -> Route? {
        routes.withLock { table in table[account]?.first(where: { $0.matches(chain: chain, method: method) }) }
    }

    /// The smart-account backend registered for `account` on `chain` that executes batches by itself, if any.
    func atomicBatchAccount(for account: Address, chain: ChainID) -> (any AtomicBatchAccount)? {
        routes.withLock { table in
            table[account]?.lazy.filter { $0.chains?.contains(chain) ?? true }
                .compactMap { $0.backend as? any AtomicBatchAccount }.first { $0.batchSubmitter != nil }
        }
    }

    /// Where `account` is registered (for errors that say where it could have been signed).
    func registrations(of account: Address) -> [AccountRegistration] {
        routes.withLock { table in
            (table[account] ?? []).map { AccountRegistration(chains: $0.chains, methods: $0.methods) }
        }
    }

    /// Signs every action and returns the results in action order, or throws naming the first bad action.
    ///
    /// - Parameters:
    ///   - actions: the wallet RPC actions, in order.
    ///   - idempotencyKey: what the journal recognises a retry of this batch by (see
    ///     ``DispatchConfiguration/journal``); without one, each action is recognised by its own bytes,
    ///     account and chain.
    ///   - deadline: the latest instant any wait of this call (receipts, dependent actions) may last.
    /// - Throws: ``DispatchError`` naming the action; its ``DispatchError/broadcast`` lists every transaction
    ///   already on its way.
    public func sign(
        actions: [WalletRpcAction], idempotencyKey: String? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws(DispatchError) -> SignedActions {
        try await sign(prepare(actions: actions), idempotencyKey: idempotencyKey, deadline: deadline)
    }

    /// Resolves, admits, routes and checks every action (the backends' preflight, the policies, the batch
    /// policies) without signing anything: what ``sign(actions:idempotencyKey:deadline:)`` does first. A
    /// caller that needs to see the resolved requests before signing (a service checking its client's
    /// rights, an audit record) prepares once and signs the prepared batch.
    ///
    /// - Parameters:
    ///   - actions: the actions, in the order their results come back.
    ///   - caller: who asks (a service's client name): ``ResolvedRequest/caller``, counted by limits per caller.
    ///   - admit: checked on each resolved action before anything else (routing, preflight, policies); a
    ///     text it returns refuses the action as ``DispatchError/Kind/notPermitted(_:)``.
    public func prepare(
        actions: [WalletRpcAction], caller: String? = nil, admit: (@Sendable (ResolvedRequest) -> String?)? = nil
    ) async throws(DispatchError) -> PreparedActions {
        try await prepare(actions: actions, caller: caller, admit: admit, judgedCalls: [:])
    }

    /// ``prepare(actions:caller:admit:)``, the actions at the keys of `judgedCalls` judged as running those calls
    /// (``ResolvedRequest/judged(as:previewer:)``).
    func prepare(
        actions: [WalletRpcAction], caller: String?, admit: (@Sendable (ResolvedRequest) -> String?)?,
        judgedCalls: [Int: [ResolvedRequest]]
    ) async throws(DispatchError) -> PreparedActions {
        guard !actions.isEmpty else { throw DispatchError(index: nil, method: nil, kind: .emptyActionList) }
        let prepared = try await prepare(actions, caller: caller, admit: admit, judgedCalls: judgedCalls)
        try evaluateBatchPolicies(prepared.map(\.request))
        return PreparedActions(
            actions: actions, prepared: prepared, approvalRequirements: approvalRequirements(of: prepared))
    }

    /// Signs a batch ``prepare(actions:caller:admit:)`` returned, as ``sign(actions:idempotencyKey:deadline:)``
    /// does after preparing.
    public func sign(
        _ prepared: PreparedActions, idempotencyKey: String? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws(DispatchError) -> SignedActions {
        if let first = prepared.approvalRequirements.first, prepared.approvedBy == nil {
            let held = prepared.prepared.first { approvalRequirements(of: [$0]).contains(first) }
            throw DispatchError(
                index: held?.request.index, method: held?.request.action.method,
                kind: .approvalRequired(prepared.approvalRequirements))
        }
        let outcomes = try await execute(
            prepared.prepared, idempotencyKey: idempotencyKey, deadline: deadline, approvedRules: prepared.approvedRules
        )
        return SignedActions(actions: prepared.actions, outcomes: outcomes)
    }

    /// Resolves, routes and checks every action (concurrently for larger batches); nothing is signed here.
    func prepare(
        _ actions: [WalletRpcAction], caller: String? = nil, admit: (@Sendable (ResolvedRequest) -> String?)?,
        judgedCalls: [Int: [ResolvedRequest]] = [:]
    ) async throws(DispatchError) -> [RoutedAction] {
        let workers = min(actions.count, max(1, configuration.resolutionWorkers ?? DispatchConfiguration.activeCores))
        if actions.count < 4 || workers == 1 {
            var prepared: [RoutedAction] = []
            for (index, action) in actions.enumerated() {
                prepared.append(
                    try prepare(action, index: index, caller: caller, admit: admit, calls: judgedCalls[index]))
            }
            return prepared
        }
        // Resolution is CPU work (parsing, EIP-712 hashing): one worker per core claims actions by index,
        // rather than one task per action.
        let cursor = ResolutionCursor()
        let results = await withTaskGroup(of: [ResolutionOutcome].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var outcomes: [ResolutionOutcome] = []
                    while true {
                        let index = cursor.next.add(1, ordering: .relaxed).oldValue
                        guard index < actions.count else { break }
                        let result: Result<RoutedAction, DispatchError>
                        do throws(DispatchError) {
                            result = .success(
                                try self.prepare(
                                    actions[index], index: index, caller: caller, admit: admit,
                                    calls: judgedCalls[index]))
                        } catch {
                            result = .failure(error)
                        }
                        outcomes.append(ResolutionOutcome(index: index, result: result))
                    }
                    return outcomes
                }
            }
            var slots = [Result<RoutedAction, DispatchError>?](
                repeating: nil, count: actions.count)
            for await outcomes in group {
                for outcome in outcomes { slots[outcome.index] = outcome.result }
            }
            return slots
        }
        var prepared: [RoutedAction] = []
        prepared.reserveCapacity(actions.count)
        for slot in results {
            switch slot {
            case .success(let pair)?: prepared.append(pair)
            case .failure(let error)?: throw error
            case nil: throw DispatchError(index: prepared.count, method: nil, kind: .invalidAction("not resolved"))
            }
        }
        return prepared
    }

    private func prepare(
        _ action: WalletRpcAction, index: Int, caller: String?, admit: (@Sendable (ResolvedRequest) -> String?)?,
        calls: [ResolvedRequest]?
    ) throws(DispatchError) -> RoutedAction {
        var request = try RequestResolver.resolve(
            action, index: index, node: nodes[action.chainId], previewer: configuration.previewer)
        request.caller = caller
        if let calls { request = request.judged(as: calls, previewer: configuration.previewer) }
        if let refusal = admit?(request) {
            throw DispatchError(index: index, method: action.method, kind: .notPermitted(refusal))
        }
        guard let route = route(for: request.account, chain: action.chainId, method: request.method) else {
            throw DispatchError(
                index: index, method: action.method,
                kind: .unknownAccount(request.account, registered: registrations(of: request.account)))
        }
        if let refusal = route.preflight?.preflight(request) {
            throw DispatchError(index: index, method: action.method, kind: refusal)
        }
        // A backend that signs filled transactions: the dispatcher sends, so it needs the chain's node first.
        if request.method == .sendTransaction, request.node == nil, route.filledSigner != nil {
            throw DispatchError(index: index, method: action.method, kind: .noNode(action.chainId.description))
        }
        try evaluatePolicies(request, index: index, method: action.method)
        return RoutedAction(
            request: request, backend: route.backend,
            pipelineSigner: PipelineSigner.of(key: route.key, filledSigner: route.filledSigner, method: request.method))
    }

    /// What the approval policies ask of `prepared`: one requirement per rule that holds any action (or any
    /// call of a batch), in policy order.
    func approvalRequirements(of prepared: [RoutedAction]) -> [ApprovalRequirement] {
        guard !approvalPolicies.isEmpty else { return [] }
        var found: [ApprovalRequirement] = []
        for policy in approvalPolicies {
            for action in prepared {
                if let requirement = policy.requirement(for: action.request), !found.contains(requirement) {
                    found.append(requirement)
                }
            }
        }
        return found
    }

    /// Every policy on `request`, then on each call of its batch (``ResolvedRequest/calls``, named
    /// `call[i]` in the refusal, nested batches `call[i].call[j]`).
    func evaluatePolicies(_ request: ResolvedRequest, index: Int, method: String, call: String = "")
        throws(DispatchError)
    {
        for policy in policies {
            if case .fail(let reason) = policy.evaluate(request) {
                throw DispatchError(
                    index: index, method: method, kind: .policyViolation(policy: policy.name, reason: call + reason))
            }
        }
        for (position, inner) in request.calls.enumerated() {
            try evaluatePolicies(inner, index: index, method: method, call: "\(call)call[\(position)]: ")
        }
    }

    /// The next action index for the resolution workers to claim.
    private final class ResolutionCursor: Sendable {
        let next = Atomic<Int>(0)
    }

    /// One action's resolution, tagged with its index.
    private struct ResolutionOutcome: Sendable {
        let index: Int
        let result: Result<RoutedAction, DispatchError>
    }
}
