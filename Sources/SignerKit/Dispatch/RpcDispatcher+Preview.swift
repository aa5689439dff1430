import EthereumPrimitives

extension RpcDispatcher {
    /// What each action really does, in action order, without routing or signing anything (no backend
    /// needs to be registered). The same previews are computed by ``sign(actions:idempotencyKey:deadline:)``
    /// and passed to policies.
    ///
    /// - Throws: ``DispatchError`` naming the first action that cannot be parsed (as `sign` would).
    public func preview(actions: [WalletRpcAction]) throws(DispatchError) -> [SigningPreview] {
        guard !actions.isEmpty else { throw DispatchError(index: nil, method: nil, kind: .emptyActionList) }
        var previews: [SigningPreview] = []
        previews.reserveCapacity(actions.count)
        for (index, action) in actions.enumerated() {
            let request = try RequestResolver.resolve(
                action, index: index, node: nil, previewer: configuration.previewer)
            previews.append(request.preview)
        }
        return previews
    }

    /// Runs the batch policies on the resolved batch (phase 1, before anything is signed).
    /// The previews batch policies judge for `request`: its calls' (recursively) when it runs a batch, else
    /// its own.
    static func judgedPreviews(of request: ResolvedRequest) -> [SigningPreview] {
        request.calls.isEmpty ? [request.preview] : request.calls.flatMap { judgedPreviews(of: $0) }
    }

    func evaluateBatchPolicies(_ requests: [ResolvedRequest]) throws(DispatchError) {
        guard !batchPolicies.isEmpty else { return }
        // A batch's calls count in its place: a cap summed over the batch sums over every call.
        let previews = requests.flatMap { Self.judgedPreviews(of: $0) }
        for policy in batchPolicies {
            if case .fail(let index, let reason) = policy.evaluate(batch: previews) {
                let method = requests.indices.contains(index) ? requests[index].action.method : nil
                throw DispatchError(
                    index: index, method: method, kind: .policyViolation(policy: policy.name, reason: reason))
            }
        }
    }
}
