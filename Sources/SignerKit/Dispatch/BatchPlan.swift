import EthereumPrimitives

/// The order a batch runs in: which actions share a nonce lane, and which must wait for an earlier
/// `eth_sendTransaction` of the same account to be mined.
struct BatchPlan: Sendable {
    /// Lanes of action indices, each run in order: all transactions of one account on one chain form one
    /// lane (each fills its nonce after the previous one); every other action is a lane of its own.
    let lanes: [[Int]]
    /// For each action, the `eth_sendTransaction` it waits for (the latest earlier one of its account), if any.
    let dependencies: [Int?]
    /// A gate per `eth_sendTransaction` that later actions wait for: finished once it is mined with status 1.
    let gates: [Int: CompletionGate]

    /// Plans `requests`; with `ordersDependentActions` off, no action waits for another's transaction.
    ///
    /// - Throws: ``DispatchError/Kind/unobservableDependency(on:chain:)`` when an action must wait for a
    ///   transaction on a chain that has no node to follow it.
    init(_ requests: [ResolvedRequest], ordersDependentActions: Bool) throws(DispatchError) {
        var lanes: [[Int]] = []
        lanes.reserveCapacity(requests.count)
        var transactionLanes: [NonceLane: Int] = [:]
        var dependencies = [Int?](repeating: nil, count: requests.count)
        var latestSend: [Address: Int] = [:]
        var gates: [Int: CompletionGate] = [:]
        for (index, request) in requests.enumerated() {
            if ordersDependentActions, let send = latestSend[request.account] {
                guard requests[send].node != nil else {
                    throw DispatchError(
                        index: index, method: request.action.method,
                        kind: .unobservableDependency(on: send, chain: requests[send].action.chainId.description))
                }
                dependencies[index] = send
                if gates[send] == nil { gates[send] = CompletionGate() }
            }
            if request.method == .sendTransaction { latestSend[request.account] = index }
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
        self.lanes = lanes
        self.dependencies = dependencies
        self.gates = gates
    }
}
