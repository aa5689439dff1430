import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// The call-batch records of EIP-5792 batches in every journal (file, SQLite, PostgreSQL): one id is one batch,
/// claimed first by exactly one of several handles racing for it, and read back by any handle.
@Suite("Call batch records in the transaction journals")
struct CallBatchJournalTests {
    enum Store: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case file, sqlite, postgres
        var testDescription: String { rawValue }

        /// Opens handles on one fresh storage.
        func journals() async throws -> @Sendable () async throws -> any TransactionJournal {
            switch self {
            case .file:
                let path = try StoreBackend.temporaryFile() + ".jsonl"
                return { FileTransactionJournal(path: path) }
            case .sqlite: return try await StoreBackend.sqlite.journals()
            case .postgres: return try await StoreBackend.postgres.journals()
            }
        }
    }

    let account: Address
    let executor: Address

    init() throws {
        account = try Address("0x2d5fd9e4a3a225a78329a64d022581275b4ca416")
        executor = try Address("0x8ba1f109551bd432803012645ac136ddd64dba72")
    }

    func batch(_ id: String, digestSeed: String, execution: CallBatchRecord.Execution, calls: Int = 2)
        -> CallBatchRecord
    {
        CallBatchRecord(
            id: id, digest: Keccak256.hash(Array(digestSeed.utf8)), chain: ChainID(eip155: 8453), account: account,
            callCount: calls, execution: execution)
    }

    @Test(
        "eight handles race to claim one id: all get the same first batch; every execution reads back",
        arguments: Store.allCases)
    func claimsOnce(store: Store) async throws {
        let open = try await store.journals()
        let id = #"pay "42" — ünïcode"#
        let contenders = (0..<8).map {
            batch(id, digestSeed: "request \($0)", execution: .sequential, calls: $0 + 1)
        }
        let winners = try await withThrowingTaskGroup(of: CallBatchRecord.self) { group in
            for contender in contenders {
                group.addTask { try await open().claimCallBatch(contender) }
            }
            return try await group.reduce(into: [CallBatchRecord]()) { $0.append($1) }
        }
        let first = try #require(winners.first)
        #expect(contenders.contains(first))
        #expect(winners.allSatisfy { $0 == first }, "one id, one batch, whatever handle asks")
        #expect(try await open().callBatch(id: id) == first)
        #expect(try await open().callBatch(id: "never sent") == nil)

        for (name, execution) in [
            ("atomic", CallBatchRecord.Execution.atomic), ("delegating", .atomicDelegating(to: executor)),
        ] {
            let batch = batch(name, digestSeed: name, execution: execution)
            #expect(try await open().claimCallBatch(batch) == batch)
            #expect(try await open().callBatch(id: name) == batch)
            #expect(try await open().callBatch(id: name)?.delegate == batch.delegate)
        }
        // A batch's transactions are journalled under keys of its own (another id never shares them).
        #expect(
            first.transactionIdentity(0)
                != batch("other", digestSeed: "", execution: .atomic).transactionIdentity(0))
        #expect(first.transactionIdentity(0) != first.transactionIdentity(1))
    }
}
