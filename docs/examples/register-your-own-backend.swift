import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SoftwareSigner
import Synchronization
import Testing

/// Requests waiting for a person (a UI, a chat bot, a second device) to approve or reject them.
actor ApprovalQueue {
    /// One request on hold.
    struct Request: Sendable {
        let id: Int
        let summary: String
    }

    /// Every request as it arrives.
    nonisolated let requests: AsyncStream<Request>
    private let announce: AsyncStream<Request>.Continuation
    private var waiting: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var lastID = 0

    init() { (requests, announce) = AsyncStream.makeStream() }

    /// Suspends until `approve(_:)` or `reject(_:)`; a cancelled wait counts as rejected.
    func decision(on summary: String) async -> Bool {
        lastID += 1
        let id = lastID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { return continuation.resume(returning: false) }
                waiting[id] = continuation
                announce.yield(Request(id: id, summary: summary))
            }
        } onCancel: {
            Task { await self.reject(id) }
        }
    }

    func approve(_ id: Int) { waiting.removeValue(forKey: id)?.resume(returning: true) }
    func reject(_ id: Int) { waiting.removeValue(forKey: id)?.resume(returning: false) }
}

/// A whole-method backend: holds each message or typed-data request in the queue, and signs with
/// its key only once a person approved it.
struct ApprovalSigner: WalletRpcSigner {
    let key: any PrehashSigner  // a SoftwareKeySigner, a PKCS#11 key, …
    let queue: ApprovalQueue

    var accounts: [Address] { [key.address] }
    var methods: Set<RpcMethod> { [.personalSign, .signTypedDataV4] }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        let digest: Digest32
        let what: String
        switch request.payload {
        case .personalMessage(let bytes, let messageDigest):
            (digest, what) = (messageDigest, String(decoding: bytes, as: UTF8.self).debugDescription)
        case .typedData(let typedData, let hashes):
            (digest, what) = (hashes.digest, typedData.primaryType)
        case .transaction, .sponsorship:
            throw .unsupportedMethod(request.method.rawValue)
        }
        let summary = "\(request.method) on \(request.action.chainId) for \(request.account): \(what)"
        guard await queue.decision(on: summary) else { throw .rejected("declined: \(summary)") }
        return .signature(try await key.sign(prehash: digest))
    }
}

/// Signs `actions` with `key`, asking `approves` about each one (all of them are asked at once).
func signWithApproval(
    _ actions: [WalletRpcAction], key: SoftwareKeySigner, approves: @escaping @Sendable (String) -> Bool
) async throws -> [String] {
    let queue = ApprovalQueue()
    let dispatcher = RpcDispatcher { AllowedMethods([.personalSign, .signTypedDataV4]) }
    try dispatcher.register(ApprovalSigner(key: key, queue: queue))

    let approver = Task {
        for await request in queue.requests {
            if approves(request.summary) { await queue.approve(request.id) } else { await queue.reject(request.id) }
        }
    }
    defer { approver.cancel() }
    return try await dispatcher.sign(actions: actions).results  // in action order, or nothing
}
