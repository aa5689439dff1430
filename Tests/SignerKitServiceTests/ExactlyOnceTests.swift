import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitCurl
import SignerKitSQLite
import SignerKitService
import SignerKitTestSupport
import Synchronization
import Testing

/// "An Idempotency-Key is paid at most once, and what a client is told is what is on chain": the windows an
/// adversary found (issue 30), each reproduced against the service in process with a real EVM node.
@Suite("Signer service in process: exactly once under failures")
struct ExactlyOnceTests {
    @Test("the audit trail fails before anything is signed: nothing is broadcast (no audit, no broadcast)")
    func noAuditNoBroadcast() async throws {
        let service = try await InProcessService.start()
        service.audit.failWhen { _ in true }
        let response = await service.post(InProcessService.payment(111), key: "pay-1")
        #expect(response.status == 503, "\(response.status)")
        #expect(try await service.minedCount() == 0, "a transaction left without an audit line")
    }

    @Test("the answer's audit line fails after the broadcast: 503, and the retry with the key is the same transaction")
    func auditFailureAfterBroadcast() async throws {
        let service = try await InProcessService.start()
        // The intent line is written; every later line (the answer's) fails, as on a file system that just
        // filled up.
        service.audit.failWhen { !$0.intent }
        for _ in 0..<3 {
            let refused = await service.post(InProcessService.payment(111), key: "pay-1")
            #expect(refused.status == 503)
        }
        service.audit.failWhen { _ in false }
        let answered = await service.post(InProcessService.payment(111), key: "pay-1")
        let hash = try #require(InProcessService.hash(of: answered), "\(answered.status)")
        #expect(try await service.minedCount() == 1, "one key, one transaction")
        let again = await service.post(InProcessService.payment(111), key: "pay-1")
        #expect(InProcessService.hash(of: again) == hash && again.header("Idempotent-Replayed") == "true")
        #expect(service.audit.records.filter(\.intent).count == 4, "every attempt wrote its intent first")
    }

    @Test(
        "the answer is lost after the transaction was mined (crash before it was stored): the retry is answered with it"
    )
    func lostAnswerAfterMined() async throws {
        let directory = try InProcessService.temporaryDirectory()
        let first = try await InProcessService.start(directory: directory, idempotency: { ForgetfulStore($0) })
        // The first instance stores no answer and leaves its claim behind, as a process killed between the
        // receipt and the store would.
        let lost = await first.post(InProcessService.payment(111), key: "pay-2")
        let hash = try #require(InProcessService.hash(of: lost))
        // A restart after the claim lapsed (the lease is the store's; the test ends the claim directly).
        let restarted = try await InProcessService.start(directory: directory, node: first.node)
        try await SQLiteIdempotencyStore(path: directory.appendingPathComponent("state.sqlite").path).release(
            client: "app", key: "header:pay-2")
        let retried = await restarted.post(InProcessService.payment(111), key: "pay-2")
        #expect(InProcessService.hash(of: retried) == hash, "the retry is told the transaction on chain")
        #expect(try await restarted.minedCount() == 1, "one key, one transaction")
    }

    @Test("a key reused with another body after a failed attempt is 422, never the first transaction's hash")
    func keyReusedWithAnotherBody() async throws {
        let service = try await InProcessService.start()
        service.audit.failWhen { !$0.intent }
        #expect(await service.post(InProcessService.payment(111), key: "pay-3").status == 503)
        service.audit.failWhen { _ in false }
        let other = await service.post(InProcessService.payment(999, to: InProcessService.otherPayee), key: "pay-3")
        #expect(other.status == 422, "\(other.status): \(String(decoding: other.body, as: UTF8.self))")
        #expect(try await service.balance(InProcessService.otherPayee) == .zero)
        #expect(try await service.balance(InProcessService.payee) == UInt256(111))
        #expect(try await service.minedCount() == 1)
    }

    @Test("two identical payments without a key, the second while the first waits for its receipt, are two payments")
    func identicalKeylessPayments() async throws {
        let gate = ReceiptGate()
        let service = try await InProcessService.start(transport: gate)
        let first = Task { await service.post(InProcessService.payment(70)) }
        // The first is broadcast and waiting for its receipt.
        await gate.firstReceiptPollArrived()
        let second = await service.post(InProcessService.payment(70))
        gate.open()
        let firstHash = try #require(InProcessService.hash(of: await first.value))
        let secondHash = try #require(InProcessService.hash(of: second))
        #expect(firstHash != secondHash)
        #expect(try await service.minedCount() == 2)
        #expect(try await service.balance(InProcessService.payee) == UInt256(140))
    }
}

/// An idempotency store that claims but never stores an answer nor releases a claim: the state a process
/// killed after the receipt and before the store leaves behind.
struct ForgetfulStore: IdempotencyStore {
    let store: SQLiteIdempotencyStore
    init(_ store: SQLiteIdempotencyStore) { self.store = store }

    func claim(client: String, key: String, requestHash: Bytes32, lease: Duration)
        async throws(IdempotencyStoreError) -> IdempotencyClaim
    {
        try await store.claim(client: client, key: key, requestHash: requestHash, lease: lease)
    }

    func complete(client: String, key: String, answer: [UInt8]) async throws(IdempotencyStoreError) {}

    func release(client: String, key: String) async throws(IdempotencyStoreError) {}
}

/// A transport to the local node that holds the *first* receipt poll until ``open()``: a payment that waits
/// for its receipt for as long as the test needs, without a clock.
final class ReceiptGate: HTTPTransport {
    private let held = Atomic<Bool>(false)
    private let arrived = Signal()
    private let opened = Signal()

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        if String(decoding: request.body ?? [], as: UTF8.self).contains("eth_getTransactionReceipt"),
            !held.exchange(true, ordering: .sequentiallyConsistent)
        {
            arrived.fire()
            await opened.fired()
        }
        return try await CurlHTTPTransport.shared.send(request)
    }

    /// Returns once the first receipt poll is being held.
    func firstReceiptPollArrived() async { await arrived.fired() }

    /// Lets the held poll (and every later one) through.
    func open() { opened.fire() }
}
