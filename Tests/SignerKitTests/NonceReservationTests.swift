import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Synchronization
import Testing

/// A journal keeping reservations in memory around a file journal: what a shared store does, small enough to
/// read in a test.
final class ReservingJournal: TransactionJournal {
    let file: FileTransactionJournal
    private struct Lane: Hashable {
        let chain: ChainID
        let account: Address
    }
    private let reserved = Mutex<[Lane: Set<UInt256>]>([:])
    private let recorded = Mutex<[Lane: Set<UInt256>]>([:])

    init(_ file: FileTransactionJournal) { self.file = file }

    /// The reservations live now.
    var liveReservations: Int { reserved.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    func record(_ entry: JournalEntry) async throws(JournalError) {
        try await file.record(entry)
        let lane = Lane(chain: entry.chain, account: entry.account)
        _ = recorded.withLock { $0[lane, default: []].insert(entry.nonce) }
        _ = reserved.withLock { $0[lane]?.remove(entry.nonce) }
    }

    func resolve(_ hashes: [Bytes32], as outcome: JournalOutcome) async throws(JournalError) {
        try await file.resolve(hashes, as: outcome)
    }

    func entry(for identity: ActionIdentity, includingReported: Bool) async throws(JournalError) -> JournalEntry? {
        try await file.entry(for: identity, includingReported: includingReported)
    }

    func unresolvedEntries() async throws(JournalError) -> [JournalEntry] { try await file.unresolvedEntries() }

    func claimCallBatch(_ batch: CallBatchRecord) async throws(JournalError) -> CallBatchRecord {
        try await file.claimCallBatch(batch)
    }

    func callBatch(id: String) async throws(JournalError) -> CallBatchRecord? { try await file.callBatch(id: id) }

    func highestNonce(chain: ChainID, account: Address) async throws(JournalError) -> UInt256? {
        try await file.highestNonce(chain: chain, account: account)
    }

    func reserveNonce(chain: ChainID, account: Address, atLeast floor: UInt256, lease: Duration)
        async throws(JournalError) -> UInt256
    {
        let lane = Lane(chain: chain, account: account)
        let held = recorded.withLock { $0[lane] ?? [] }
        return reserved.withLock { table in
            var nonce = floor
            while held.contains(nonce) || table[lane, default: []].contains(nonce),
                let next = nonce.adding(UInt256(1))
            {
                nonce = next
            }
            table[lane, default: []].insert(nonce)
            return nonce
        }
    }

    func releaseNonce(chain: ChainID, account: Address, nonce: UInt256) async throws(JournalError) {
        _ = reserved.withLock { $0[Lane(chain: chain, account: account)]?.remove(nonce) }
    }
}

@Suite("Nonce reservations on a local EVM")
struct NonceReservationTests {
    @Test("concurrent batches of one account get distinct nonces; a refused transaction's nonce is released")
    func concurrentBatches() async throws {
        let setup = try await LocalChain.start()
        defer { setup.evm.stop() }
        // A node whose pending count always says 0: only the reservations keep the nonces apart.
        let lagging = FaultyNode(setup.client)
        lagging.set("eth_getTransactionCount", .answer(.string("0x0")))
        let journal = ReservingJournal(try BroadcastSafetyTests.journal())
        let dispatcher = RpcDispatcher(
            nodes: [setup.chain: lagging], configuration: DispatchConfiguration(journal: journal)
        ) {
            GasLimitCap(maximumGas: UInt256(100_000))
        }
        try dispatcher.register(setup.key)
        async let first = dispatcher.sign(actions: [setup.transfer(1)])
        async let second = dispatcher.sign(actions: [setup.transfer(2)])
        let results = try await [first.results[0], second.results[0]]
        var nonces: Set<UInt256> = []
        for result in results {
            let transaction = try #require(try await setup.client.transactionByHash(try Bytes32(hex: result)))
            nonces.insert(try UInt256(text: try #require(transaction["nonce"]?.stringValue)))
        }
        #expect(nonces == [0, 1])
        #expect(journal.liveReservations == 0, "recording ended both reservations")

        // Refused after its nonce was reserved (the gas limit is judged once filled): the nonce is free again.
        lagging.set("eth_estimateGas", .answer(.string("0x5f5e100")))
        await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: [setup.transfer(3)]) }
        #expect(journal.liveReservations == 0, "the refusal released its reservation")
        lagging.set("eth_estimateGas", nil)
        let next = try await dispatcher.sign(actions: [setup.transfer(4)])
        let transaction = try #require(try await setup.client.transactionByHash(try Bytes32(hex: next.results[0])))
        #expect(transaction["nonce"]?.stringValue == "0x2", "no gap: the released nonce 2 is used")
        #expect(try await setup.minedCount() == 3)
    }
}
