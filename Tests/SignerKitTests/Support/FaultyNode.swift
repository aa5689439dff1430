import EthereumPrimitives
import Foundation
import SignerKit
import Synchronization

/// A real node behind a switchboard of faults: every call is forwarded to `inner` unless a fault for its
/// method says otherwise. Used to lose a send's answer after the node accepted it, to make the pending
/// nonce lag, and to suggest absurd fees.
final class FaultyNode: EthereumNode {
    /// What happens to one method's calls.
    enum Fault: Sendable {
        /// Forwarded; then the answer is lost (a transport error), as when a connection drops after the node
        /// accepted the request.
        case loseAnswer
        /// Not forwarded: the node is unreachable.
        case unreachable
        /// Not forwarded: answered with this result.
        case answer(JSONValue)
    }

    let inner: any EthereumNode
    private let faults = Mutex<[String: Fault]>([:])
    private let seen = Mutex<[String]>([])

    init(_ inner: any EthereumNode) { self.inner = inner }

    /// Sets (or with `nil` clears) the fault of `method`.
    func set(_ method: String, _ fault: Fault?) { faults.withLock { $0[method] = fault } }

    /// Every method called, in order.
    var methods: [String] { seen.withLock { $0 } }

    func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        seen.withLock { $0.append(method) }
        switch faults.withLock({ $0[method] }) {
        case nil:
            return try await inner.call(method: method, params: params)
        case .loseAnswer?:
            _ = try await inner.call(method: method, params: params)
            throw .transport("connection reset by peer after the request was sent")
        case .unreachable?:
            throw .transport("connection refused")
        case .answer(let value)?:
            return value
        }
    }
}

/// A key that records every digest it signs, in order.
final class RecordingSigner: PrehashSigner {
    let key: any PrehashSigner
    private let digests = Mutex<[Digest32]>([])

    init(_ key: any PrehashSigner) { self.key = key }

    var address: Address { key.address }

    /// Every digest signed so far.
    var signed: [Digest32] { digests.withLock { $0 } }

    func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
        digests.withLock { $0.append(prehash) }
        return try await key.sign(prehash: prehash)
    }
}
