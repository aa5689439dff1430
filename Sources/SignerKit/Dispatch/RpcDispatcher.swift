import EthereumPrimitives
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
/// concurrently and fill result slots by index; a failure cancels the rest and no bundle escapes.
public final class RpcDispatcher: Sendable {
    private struct Route: Sendable {
        let backend: any WalletRpcSigner
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
    private let policies: [any ActionPolicy]
    private let nodes: [ChainID: any EthereumNode]

    /// A dispatcher with nodes for the chains whose transactions it may fill and broadcast, and policies
    /// evaluated on every action before anything is signed.
    public init(
        nodes: [ChainID: any EthereumNode] = [:], @PolicyBuilder policies: () -> [any ActionPolicy] = { [] }
    ) {
        self.nodes = nodes
        self.policies = policies()
    }

    /// Registers a whole-method backend for each of its accounts. Fails when another backend already
    /// claims one of those accounts for an overlapping chain and method.
    public func register(_ backend: any WalletRpcSigner) throws(RegistrationError) {
        guard !backend.accounts.isEmpty, !backend.methods.isEmpty else { throw .emptyClaim(backend.name) }
        let newRoutes = backend.accounts.map {
            Route(backend: backend, account: $0, chains: backend.chains, methods: backend.methods)
        }
        try routes.withLock { (table: inout [Address: [Route]]) throws(RegistrationError) in
            for route in newRoutes {
                if let clash = table[route.account, default: []].first(where: { $0.overlaps(route) }) {
                    throw .accountAlreadyClaimed(route.account, by: clash.backend.name)
                }
            }
            for route in newRoutes { table[route.account, default: []].append(route) }
        }
    }

    /// Registers a key: it gets every method SignerKit implements on top of ``PrehashSigner``.
    public func register(
        _ key: any PrehashSigner, chains: Set<ChainID>? = nil, methods: Set<RpcMethod> = Set(RpcMethod.allCases)
    ) throws(RegistrationError) {
        try register(PrehashBackend(key, chains: chains, methods: methods))
    }

    /// The backend that would sign for `account` on `chain` with `method`.
    public func backend(for account: Address, chain: ChainID, method: RpcMethod) -> (any WalletRpcSigner)? {
        routes.withLock { table in
            table[account]?.first(where: { $0.matches(chain: chain, method: method) })?.backend
        }
    }

    /// Signs every action and returns the results in action order, or throws naming the first bad action.
    public func sign(actions: [WalletRpcAction]) async throws(DispatchError) -> SignedActions {
        guard !actions.isEmpty else { throw DispatchError(index: nil, method: nil, kind: .emptyActionList) }
        let prepared = try await prepare(actions)
        let outcomes = try await execute(prepared)
        return SignedActions(actions: actions, outcomes: outcomes)
    }

    /// Resolves, routes and checks every action (concurrently for larger batches); nothing is signed here.
    func prepare(_ actions: [WalletRpcAction]) async throws(DispatchError) -> [(ResolvedRequest, any WalletRpcSigner)] {
        if actions.count < 4 {
            var prepared: [(ResolvedRequest, any WalletRpcSigner)] = []
            for (index, action) in actions.enumerated() { prepared.append(try prepare(action, index: index)) }
            return prepared
        }
        let results = await withTaskGroup(
            of: (Int, Result<(ResolvedRequest, any WalletRpcSigner), DispatchError>).self
        ) { group in
            for (index, action) in actions.enumerated() {
                group.addTask {
                    do throws(DispatchError) { return (index, .success(try self.prepare(action, index: index))) } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var slots = [Result<(ResolvedRequest, any WalletRpcSigner), DispatchError>?](repeating: nil, count: actions.count)
            for await (index, result) in group { slots[index] = result }
            return slots
        }
        var prepared: [(ResolvedRequest, any WalletRpcSigner)] = []
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

    private func prepare(_ action: WalletRpcAction, index: Int) throws(DispatchError) -> (ResolvedRequest, any WalletRpcSigner) {
        let request = try RequestResolver.resolve(action, index: index, node: nodes[action.chainId])
        guard let backend = backend(for: request.account, chain: action.chainId, method: request.method) else {
            throw DispatchError(index: index, method: action.method, kind: .unknownAccount(request.account))
        }
        for policy in policies {
            if case .fail(let reason) = policy.evaluate(request) {
                throw DispatchError(index: index, method: action.method, kind: .policyViolation(policy: policy.name, reason: reason))
            }
        }
        return (request, backend)
    }

    /// Runs the backends concurrently; results fill slots by index; the first failure cancels the rest.
    private func execute(_ prepared: [(ResolvedRequest, any WalletRpcSigner)]) async throws(DispatchError) -> [ActionResult] {
        if prepared.count == 1, let (request, backend) = prepared.first {
            do { return [try await backend.handle(request)] } catch {
                throw DispatchError(index: request.index, method: request.action.method, kind: .backend(error))
            }
        }
        let outcome: Result<[ActionResult], DispatchError> = await withTaskGroup(
            of: (Int, Result<ActionResult, SignerError>).self
        ) { group in
            for (request, backend) in prepared {
                group.addTask {
                    do throws(SignerError) { return (request.index, .success(try await backend.handle(request))) } catch {
                        return (request.index, .failure(error))
                    }
                }
            }
            var slots = [ActionResult?](repeating: nil, count: prepared.count)
            for await (index, result) in group {
                switch result {
                case .success(let value): slots[index] = value
                case .failure(let error):
                    group.cancelAll()
                    let request = prepared[index].0
                    return .failure(DispatchError(index: index, method: request.action.method, kind: .backend(error)))
                }
            }
            var filled: [ActionResult] = []
            filled.reserveCapacity(slots.count)
            for (index, slot) in slots.enumerated() {
                guard let slot else {
                    return .failure(
                        DispatchError(index: index, method: prepared[index].0.action.method, kind: .backend(.backendFailure("no result"))))
                }
                filled.append(slot)
            }
            return .success(filled)
        }
        return try outcome.get()
    }
}
