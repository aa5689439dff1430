import EthereumPrimitives
import Synchronization

/// The contract accounts' signatures of one batch, collected while its lanes run and checked once all
/// results are in: one ``AccountSignatureVerifier`` batch (one JSON-RPC round trip) per chain.
final class PendingAccountClaims: Sendable {
    private let claims = Mutex<[(index: Int, claim: AccountSignatureClaim)]>([])

    /// Records that the result of action `index` is valid only if its account accepts `claim`.
    func add(_ claim: AccountSignatureClaim, at index: Int) { claims.withLock { $0.append((index, claim)) } }

    /// Checks every recorded claim against its action's chain (`requests` by index), lowest index first.
    ///
    /// - Throws: the failure of the lowest action index whose claim is invalid
    ///   (``DispatchError/Kind/verificationFailed(_:)``), has no node (``DispatchError/Kind/noNode(_:)``) or
    ///   whose node failed (``DispatchError/Kind/verificationUnavailable(_:)``).
    func verify(_ requests: [ResolvedRequest]) async throws(ActionFailure) {
        let pending = claims.withLock { $0 }.sorted { $0.index < $1.index }
        guard !pending.isEmpty else { return }
        var chains: [UInt256] = []
        var byChain: [UInt256: [(index: Int, claim: AccountSignatureClaim)]] = [:]
        for entry in pending {
            let chain = requests[entry.index].chainId
            if byChain[chain] == nil { chains.append(chain) }
            byChain[chain, default: []].append(entry)
        }
        // The chains are asked at once: one round trip per chain, and the slowest chain sets the wait.
        let failures = await withTaskGroup(of: [ActionFailure].self) { group in
            for chain in chains {
                let entries = byChain[chain] ?? []
                group.addTask { await Self.check(entries, requests) }
            }
            var failures: [ActionFailure] = []
            for await found in group { failures += found }
            return failures
        }
        if let failure = failures.min(by: { $0.index < $1.index }) { throw failure }
    }

    /// The failures of one chain's claims (`entries`, all on that chain): its node asked once.
    private static func check(_ entries: [(index: Int, claim: AccountSignatureClaim)], _ requests: [ResolvedRequest])
        async -> [ActionFailure]
    {
        guard let first = entries.first else { return [] }
        guard let node = requests[first.index].node else {
            return [ActionFailure(index: first.index, kind: .noNode(requests[first.index].action.chainId.description))]
        }
        let verdicts: [AccountSignatureVerdict]
        do { verdicts = try await AccountSignatureVerifier.verify(entries.map(\.claim), node: node) } catch {
            return [ActionFailure(index: first.index, kind: .verificationUnavailable(error.description))]
        }
        return zip(entries, verdicts).compactMap { entry, verdict in
            guard case .invalid(let reason) = verdict else { return nil }
            return ActionFailure(index: entry.index, kind: .verificationFailed(reason))
        }
    }
}
