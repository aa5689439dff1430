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
/// concurrently and fill result slots by index; a failure cancels the rest and no bundle escapes.
/// Transactions of one account on one chain are the exception to "concurrently": they run one after
/// another in action order, so each gets the next nonce (see docs/DISPATCHER.md).
public final class RpcDispatcher: Sendable {
    private struct Route: Sendable {
        let backend: any WalletRpcSigner
        /// The same backend when it checks requests in phase 1 (cast once, at registration).
        let preflight: (any PreflightChecked)?
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
        let preflight = backend as? any PreflightChecked
        let newRoutes = backend.accounts.map {
            Route(backend: backend, preflight: preflight, account: $0, chains: backend.chains, methods: backend.methods)
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
        route(for: account, chain: chain, method: method)?.backend
    }

    private func route(for account: Address, chain: ChainID, method: RpcMethod) -> Route? {
        routes.withLock { table in table[account]?.first(where: { $0.matches(chain: chain, method: method) }) }
    }

    /// Signs every action and returns the results in action order, or throws naming the first bad action.
    public func sign(actions: [WalletRpcAction]) async throws(DispatchError) -> SignedActions {
        guard !actions.isEmpty else { throw DispatchError(index: nil, method: nil, kind: .emptyActionList) }
        var prepared = try await prepare(actions)
        Self.assignNonceOffsets(&prepared)
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
        // Resolution is CPU work (parsing, EIP-712 hashing): one worker per core claims actions by index,
        // rather than one task per action.
        let cursor = ResolutionCursor()
        let workers = min(actions.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        let results = await withTaskGroup(of: [ResolutionOutcome].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var outcomes: [ResolutionOutcome] = []
                    while true {
                        let index = cursor.next.add(1, ordering: .relaxed).oldValue
                        guard index < actions.count else { break }
                        let result: Result<(ResolvedRequest, any WalletRpcSigner), DispatchError>
                        do throws(DispatchError) {
                            result = .success(try self.prepare(actions[index], index: index))
                        } catch {
                            result = .failure(error)
                        }
                        outcomes.append(ResolutionOutcome(index: index, result: result))
                    }
                    return outcomes
                }
            }
            var slots = [Result<(ResolvedRequest, any WalletRpcSigner), DispatchError>?](
                repeating: nil, count: actions.count)
            for await outcomes in group {
                for outcome in outcomes { slots[outcome.index] = outcome.result }
            }
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

    private func prepare(_ action: WalletRpcAction, index: Int) throws(DispatchError) -> (
        ResolvedRequest, any WalletRpcSigner
    ) {
        let request = try RequestResolver.resolve(action, index: index, node: nodes[action.chainId])
        guard let route = route(for: request.account, chain: action.chainId, method: request.method) else {
            throw DispatchError(index: index, method: action.method, kind: .unknownAccount(request.account))
        }
        if let refusal = route.preflight?.preflight(request) {
            throw DispatchError(index: index, method: action.method, kind: refusal)
        }
        for policy in policies {
            if case .fail(let reason) = policy.evaluate(request) {
                throw DispatchError(
                    index: index, method: action.method, kind: .policyViolation(policy: policy.name, reason: reason))
            }
        }
        return (request, route.backend)
    }

    /// Calls one backend, turning its error into a value.
    ///
    /// Kept out of the task-group closure on purpose: Swift 6.3 release builds miscompile a child task
    /// written as `do { return (index, .success(try await …)) } catch { return (index, .failure(error)) }`
    /// — the index comes back as garbage (an out-of-range slot write crashes the process).
    private static func outcome(
        of backend: any WalletRpcSigner, for request: ResolvedRequest
    ) async -> Result<ActionResult, SignerError> {
        do throws(SignerError) { return .success(try await backend.handle(request)) } catch { return .failure(error) }
    }

    /// The next action index for the resolution workers to claim.
    private final class ResolutionCursor: Sendable {
        let next = Atomic<Int>(0)
    }

    /// One action's resolution, tagged with its index.
    private struct ResolutionOutcome: Sendable {
        let index: Int
        let result: Result<(ResolvedRequest, any WalletRpcSigner), DispatchError>
    }

    /// Transactions of one account on one chain: they share a nonce sequence.
    private struct NonceLane: Hashable {
        let account: Address
        let chain: ChainID
    }

    /// Why a lane stopped: the backend error of the action at `index`.
    private struct LaneFailure: Error {
        let index: Int
        let error: SignerError
    }

    /// One result slot per action, written by the lanes (each index by exactly one lane).
    private final class ResultSlots: Sendable {
        private let slots: Mutex<[ActionResult?]>

        init(count: Int) { slots = Mutex([ActionResult?](repeating: nil, count: count)) }

        func store(_ result: ActionResult, at index: Int) { slots.withLock { $0[index] = result } }

        /// Every result in slot order, or the index of the first empty slot.
        func collect() -> Result<[ActionResult], LaneFailure> {
            slots.withLock { slots in
                var filled: [ActionResult] = []
                filled.reserveCapacity(slots.count)
                for (index, slot) in slots.enumerated() {
                    guard let slot else {
                        return .failure(LaneFailure(index: index, error: .backendFailure("no result")))
                    }
                    filled.append(slot)
                }
                return .success(filled)
            }
        }
    }

    /// Sets ``ResolvedRequest/pendingNonceOffset`` on nonce-less transactions: the number of nonce-less
    /// `eth_signTransaction` requests of the same account and chain before them in the batch.
    static func assignNonceOffsets(_ prepared: inout [(ResolvedRequest, any WalletRpcSigner)]) {
        var signOnlyCounts: [NonceLane: UInt64] = [:]
        for position in prepared.indices {
            guard case .transaction(let transaction, _) = prepared[position].0.payload, transaction.nonce == nil else {
                continue
            }
            let lane = NonceLane(account: prepared[position].0.account, chain: prepared[position].0.action.chainId)
            let earlier = signOnlyCounts[lane, default: 0]
            prepared[position].0.pendingNonceOffset = earlier
            if prepared[position].0.method == .signTransaction { signOnlyCounts[lane] = earlier + 1 }
        }
    }

    /// Splits the batch into lanes of indices: all transactions of one account on one chain form one lane,
    /// handled one after another in action order (each fills its nonce once the previous one was broadcast);
    /// every other action is a lane of its own.
    static func lanes(_ prepared: [(ResolvedRequest, any WalletRpcSigner)]) -> [[Int]] {
        var lanes: [[Int]] = []
        lanes.reserveCapacity(prepared.count)
        var transactionLanes: [NonceLane: Int] = [:]
        for (index, (request, _)) in prepared.enumerated() {
            guard case .transaction = request.payload else {
                lanes.append([index])
                continue
            }
            let key = NonceLane(account: request.account, chain: request.action.chainId)
            if let lane = transactionLanes[key] {
                lanes[lane].append(index)
            } else {
                transactionLanes[key] = lanes.count
                lanes.append([index])
            }
        }
        return lanes
    }

    /// Runs one lane in order into `slots`; throws ``LaneFailure`` at its first failure, or when the batch
    /// was cancelled before the lane's next action started.
    private static func run(
        lane: [Int], of prepared: [(ResolvedRequest, any WalletRpcSigner)], into slots: ResultSlots
    ) async throws(LaneFailure) {
        for (position, index) in lane.enumerated() {
            if position > 0 && Task.isCancelled {
                throw LaneFailure(index: index, error: .backendFailure("not started: the batch was cancelled"))
            }
            let (request, backend) = prepared[index]
            switch await outcome(of: backend, for: request) {
            case .success(let value): slots.store(value, at: index)
            case .failure(let error): throw LaneFailure(index: index, error: error)
            }
        }
    }

    /// Runs the lanes concurrently; results fill slots by index; the first failure cancels the rest.
    private func execute(_ prepared: [(ResolvedRequest, any WalletRpcSigner)]) async throws(DispatchError)
        -> [ActionResult]
    {
        if prepared.count == 1, let (request, backend) = prepared.first {
            do { return [try await backend.handle(request)] } catch {
                throw DispatchError(index: request.index, method: request.action.method, kind: .backend(error))
            }
        }
        let lanes = Self.lanes(prepared)
        let slots = ResultSlots(count: prepared.count)
        let outcome: Result<[ActionResult], LaneFailure>
        do {
            // A discarding group: the parent is not woken per finished lane, and the first lane that throws
            // cancels the others; that first error is the one rethrown.
            try await withThrowingDiscardingTaskGroup { group in
                for lane in lanes {
                    group.addTask { try await Self.run(lane: lane, of: prepared, into: slots) }
                }
            }
            outcome = slots.collect()
        } catch let failure as LaneFailure {
            outcome = .failure(failure)
        } catch {
            outcome = .failure(LaneFailure(index: 0, error: .backendFailure("\(error)")))
        }
        switch outcome {
        case .success(let results): return results
        case .failure(let failure):
            throw DispatchError(
                index: failure.index, method: prepared[failure.index].0.action.method, kind: .backend(failure.error))
        }
    }
}
