import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

@testable import SignerKitSQLite

/// The SQLite file's ledger rows, reached through a connection of the test's own (as an operator's `sqlite3`).
struct SQLiteLedgerStore: LedgerStoreUnderTest {
    let path: String
    let recordsTable = "ledger_records"
    let checkpointsTable = "ledger_checkpoints"

    func execute(_ sql: String) async throws { try SQLiteDatabase(path: path).execute(sql) }

    func contents() async throws -> (records: [String], checkpoints: [String]) {
        try SQLiteAuditTrail.ledgerContents(path: path)
    }
}

/// The audit ledger in the service's SQLite file: records and checkpoints that verify, receipts, several
/// processes (trail handles) on one file, and tampering with the rows found where it was done.
@Suite("Audit ledger in SQLite")
struct SQLiteLedgerTests {
    /// A trail on a new file, and the file's store.
    static func fresh() throws -> (SQLiteAuditTrail, SQLiteLedgerStore) {
        let path = try StoreBackend.temporaryFile()
        return (try SQLiteAuditTrail(path: path, ledger: LedgerFixture.settings()), SQLiteLedgerStore(path: path))
    }

    @Test("appends make records 0..<n and a checkpoint every 3 that verify; a trail opened later continues")
    func appendsAndCheckpoints() async throws {
        let (trail, store) = try Self.fresh()
        try await LedgerFixture.checkAppends(trail, store: store) {
            try SQLiteAuditTrail(path: store.path, ledger: LedgerFixture.settings())
        }
    }

    @Test("receipts by request id and by leaf verify against their checkpoint")
    func receipts() async throws {
        let (trail, store) = try Self.fresh()
        try await LedgerFixture.checkReceipts(trail, store: store)
    }

    @Test("a checkpoint row changed under the trail is not given out in a receipt")
    func receiptOfChangedCheckpoint() async throws {
        let (trail, store) = try Self.fresh()
        try await LedgerFixture.checkReceiptOfChangedCheckpoint(trail, store: store)
    }

    @Test(
        "the newest record deleted or changed under the trail stops its appends",
        arguments: LedgerFixture.tailChanges)
    func appendAfterChangedTail(change: String) async throws {
        let (trail, store) = try Self.fresh()
        try await LedgerFixture.checkAppendAfterChangedTail(
            trail, store: store, change: change.replacingOccurrences(of: "TABLE", with: store.recordsTable))
    }

    @Test("a receipt for a record no checkpoint covers signs one of the current size")
    func receiptSignsCheckpoint() async throws {
        let (trail, store) = try Self.fresh()
        try await LedgerFixture.checkReceiptSignsCheckpoint(trail, store: store)
    }

    @Test("two trails on one file appending at once make one chain")
    func twoTrails() async throws {
        let (first, store) = try Self.fresh()
        let second = try SQLiteAuditTrail(path: store.path, ledger: LedgerFixture.settings())
        try await LedgerFixture.checkTwoTrails([first, second], store: store)
    }

    @Test(
        "tampering with the rows is found at the first changed record or checkpoint", arguments: LedgerTamper.allCases)
    func tampering(tamper: LedgerTamper) async throws {
        let (trail, store) = try Self.fresh()
        try await tamper.check(trail, store: store)
    }

    @Test("a trail does not open on a ledger whose records do not follow on")
    func refusesBrokenLedger() async throws {
        let (trail, store) = try Self.fresh()
        #expect(await LedgerFixture.fill(trail))
        try await store.execute("DELETE FROM ledger_records WHERE seq = 4")
        let error = #expect(throws: AuditTrailError.self) {
            try SQLiteAuditTrail(path: store.path, ledger: LedgerFixture.settings())
        }
        #expect(error?.message.contains("record 4") == true, "\(String(describing: error))")
    }

    @Test("reading a ledger: a missing file and a file without ledger tables are errors naming the file")
    func contentsErrors() throws {
        let missing = try StoreBackend.temporaryFile()
        let error = #expect(throws: AuditTrailError.self) { try SQLiteAuditTrail.ledgerContents(path: missing) }
        #expect(error?.message.contains(missing) == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: missing), "reading created no database")
        let other = try StoreBackend.temporaryFile()
        _ = try SQLiteUsageCounterStore(path: other)
        let empty = #expect(throws: AuditTrailError.self) { try SQLiteAuditTrail.ledgerContents(path: other) }
        #expect(empty?.message.contains("holds no audit ledger") == true, "\(String(describing: empty))")
    }
}
