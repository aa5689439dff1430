import EthereumPrimitives
import SignerKit
import Synchronization

/// A node that forwards to `inner` and counts round trips: each `call` is one, each `callBatch` is one
/// (however many requests it carries). The EOA path must show zero; a batch of contract accounts' results one.
final class CountingNode: EthereumNode {
    let inner: any EthereumNode
    private let counts = Mutex<(calls: Int, batches: Int, batchedRequests: Int)>((0, 0, 0))

    init(_ inner: any EthereumNode) { self.inner = inner }

    /// Round trips so far.
    var roundTrips: Int { counts.withLock { $0.calls + $0.batches } }
    /// Requests sent inside batches so far.
    var batchedRequests: Int { counts.withLock { $0.batchedRequests } }

    func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        counts.withLock { $0.calls += 1 }
        return try await inner.call(method: method, params: params)
    }

    func callBatch(_ requests: [NodeRequest]) async throws(NodeError) -> [Result<JSONValue, NodeError>] {
        counts.withLock {
            $0.batches += 1
            $0.batchedRequests += requests.count
        }
        return try await inner.callBatch(requests)
    }
}
