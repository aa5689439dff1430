import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitCurl
import SignerKitService
import SignerKitTestSupport
import Synchronization
import Testing

/// A request that dies after journalling its transaction must not stall the account until that one key is
/// retried (issue 30, failure 6): the service's recovery sweep sends what is journalled and unknown to the node.
@Suite("Signer service in process: recovery of journalled transactions")
struct RecoveryTests {
    @Test("a transaction journalled but never sent is sent by the start-up sweep; the next payment follows it")
    func startUpSweep() async throws {
        let sends = SendSwitch()
        let service = try await InProcessService.start(transport: sends)
        sends.refuse(true)
        let lost = await service.post(InProcessService.payment(5), key: "lost-1")
        #expect(InProcessService.hash(of: lost) == nil, "the send failed")
        let journalled = try await service.journal.unresolvedEntries()
        try #require(journalled.count == 1, "the transaction was journalled before the send")
        #expect(try await service.minedCount() == 0)
        sends.refuse(false)

        let recovery = try #require(service.handler.service.recovery)
        let report = try await recovery.sweep()
        #expect(report.resent == [journalled[0].hash] && report.rejected.isEmpty && report.failed.isEmpty)
        #expect(try await service.minedCount() == 1, "the journalled transaction was mined")
        #expect(try await recovery.sweep() == JournalRecovery.Report(), "a second sweep has nothing to do")

        // The next payment takes the next nonce and is mined at once; the lost key's retry is the first one.
        let next = await service.post(InProcessService.payment(6), key: "next-1")
        #expect(InProcessService.hash(of: next) != nil)
        let retried = await service.post(InProcessService.payment(5), key: "lost-1")
        #expect(InProcessService.hash(of: retried) == journalled[0].hash.hex)
        #expect(try await service.minedCount() == 2)
    }

    @Test("the periodic sweep runs on the injected clock: nothing before the interval, the lost send after it")
    func periodicSweep() async throws {
        let sends = SendSwitch()
        let service = try await InProcessService.start(transport: sends)
        let clock = ManualClock()
        let recovery = try #require(service.handler.service.recovery)
        let (reports, reported) = AsyncStream<JournalRecovery.Report>.makeStream()
        let loop = Task {
            await recovery.run(every: .seconds(30), clock: clock) { outcome in
                if case .success(let report) = outcome { reported.yield(report) }
            }
        }
        defer { loop.cancel() }
        var iterator = reports.makeAsyncIterator()
        #expect(await iterator.next() == JournalRecovery.Report(), "the first sweep found nothing")
        await clock.sleepers(atLeast: 1)

        sends.refuse(true)
        _ = await service.post(InProcessService.payment(7), key: "lost-2")
        sends.refuse(false)
        let journalled = try await service.journal.unresolvedEntries()
        try #require(journalled.count == 1)
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1, "not yet: the loop still sleeps")
        clock.advance(by: .seconds(1))
        #expect(await iterator.next()?.resent == [journalled[0].hash])
        #expect(try await service.minedCount() == 1)
    }
}

/// A transport to the local node that can refuse every `eth_sendRawTransaction` before it is sent (a node
/// that went away between signing and broadcasting), passing every other call through.
final class SendSwitch: HTTPTransport {
    private let refusing = Atomic<Bool>(false)

    /// Refuses sends from now on (`true`) or lets them through (`false`).
    func refuse(_ on: Bool) { refusing.store(on, ordering: .sequentiallyConsistent) }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        if refusing.load(ordering: .sequentiallyConsistent), body.contains("eth_sendRawTransaction") {
            throw .notSent("test: connection refused")
        }
        return try await CurlHTTPTransport.shared.send(request)
    }
}
