// The code between BEGIN README and END README is the README's "Register your own backend" example
// (docs/examples/register-your-own-backend.swift holds the same text); the tests below run it.

// BEGIN README
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
// END README

// The tests below need the test keys; the example above does not (so this import sits here).
// swift-format-ignore: OrderedImports
import SignerKitTestSupport

/// Runs the README's custom-backend example.
@Suite("README: register your own backend")
struct RegisterYourOwnBackendTests {
    @Test("Approved requests are signed by the wrapped key, in action order")
    func approved() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let asked = Mutex<[String]>([])
        let actions = [
            Actions.personal("log in to example.org", key.address),
            Actions.typedData(key.address),
            Actions.personal("0x68656c6c6f", key.address),
        ]
        let results = try await signWithApproval(actions, key: key) { summary in
            asked.withLock { $0.append(summary) }
            return true
        }
        #expect(results.count == 3)
        try expectSignature(
            results[0], by: key.address, over: PersonalMessage.digest(Array("log in to example.org".utf8)))
        try expectSignature(results[1], by: key.address, over: try Bytes32(hex: MailExample.digestOnChain1))
        try expectSignature(results[2], by: key.address, over: PersonalMessage.digest(Array("hello".utf8)))
        let summaries = asked.withLock { $0 }.sorted()
        #expect(summaries.count == 3)
        #expect(summaries.contains("eth_signTypedData_v4 on eip155:1 for \(key.address): Mail"))
        #expect(summaries.contains("personal_sign on eip155:8453 for \(key.address): \"hello\""))
    }

    @Test("One rejection: the dispatcher throws naming that action, and no results escape")
    func rejected() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let actions = [
            Actions.personal("fine", key.address),
            Actions.personal("transfer everything", key.address),
            Actions.typedData(key.address),
        ]
        do {
            let results = try await signWithApproval(actions, key: key) { !$0.contains("everything") }
            Issue.record("expected a rejection, got \(results)")
        } catch let error as DispatchError {
            #expect(error.index == 1)
            #expect(error.method == "personal_sign")
            guard case .backend(.rejected(let text)) = error.kind else {
                Issue.record("expected .rejected, got \(error)")
                return
            }
            #expect(text.hasSuffix("\"transfer everything\""))
        }
    }

    @Test("Transactions are outside the backend's claim: refused before anyone is asked")
    func transactionsRefused() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let asked = Mutex(0)
        let actions = [
            Actions.personal("fine", key.address),
            Actions.signTransaction(Actions.legacyTransactionJSON(from: key.address)),
        ]
        do {
            _ = try await signWithApproval(actions, key: key) { _ in
                asked.withLock { $0 += 1 }
                return true
            }
            Issue.record("expected a refusal")
        } catch let error as DispatchError {
            #expect(error.index == 1)
            // No backend claims eth_signTransaction for this account: routing refuses it (policies come after).
            #expect(
                error.kind
                    == .unknownAccount(
                        key.address,
                        registered: [AccountRegistration(chains: nil, methods: [.personalSign, .signTypedDataV4])]))
        }
        #expect(asked.withLock { $0 } == 0)
    }

    @Test("docs/examples/register-your-own-backend.swift is the README block of this file")
    func docsCopyInSync() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let begin = try #require(source.range(of: "// BEGIN README\n"))
        let end = try #require(source.range(of: "// END README\n"))
        let block = String(source[begin.upperBound..<end.lowerBound])
        // This file is Tests/SignerKitTests/RegisterYourOwnBackendTests.swift.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let docs = root.appendingPathComponent("docs/examples/register-your-own-backend.swift")
        #expect(
            try String(contentsOf: docs, encoding: .utf8) == block, "regenerate the docs copy from the README block")
    }

    @Test("A wait cancelled by the dispatcher (another action failed) counts as a rejection")
    func cancelledWait() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let queue = ApprovalQueue()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(ApprovalSigner(key: key, queue: queue))
        let other = try TestKeys.key(TestKeys.deltaHex)
        try dispatcher.register(RejectingBackend(account: other.address, counter: CallCounter()))
        // Nobody answers the queue; the rejecting backend fails, which cancels the waiting approval.
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [
                Actions.personal("waits", key.address), Actions.personal("no", other.address),
            ])
        }
        #expect(error?.index == 1)
    }
}
