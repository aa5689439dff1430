import Foundation
import SignerKit
import SignerKitPostgres
import SignerKitTestSupport
import Testing

/// A PostgreSQL database's ledger rows, reached through `psql` (as an operator with database access).
struct PostgresLedgerStore: LedgerStoreUnderTest {
    let server: PostgresServer
    let database: String
    let recordsTable = "signerkit_ledger"
    let checkpointsTable = "signerkit_ledger_checkpoints"

    var configuration: PostgresConfiguration { server.configuration(database: database) }

    func execute(_ sql: String) async throws { try await server.psql(sql, database: database) }

    func contents() async throws -> (records: [String], checkpoints: [String]) {
        try await PostgresAuditTrail.ledgerContents(configuration: configuration)
    }
}

/// The audit ledger beside the audit rows in PostgreSQL: records and checkpoints that verify, receipts, two
/// instances making one chain, and tampering with the rows found where it was done.
@Suite("Audit ledger in PostgreSQL")
struct PostgresLedgerTests {
    /// A new database and its store.
    static func freshStore() async throws -> PostgresLedgerStore {
        let server = try await PostgresServer.shared.value
        return PostgresLedgerStore(server: server, database: try await server.createDatabase())
    }

    /// A trail with the fixture's ledger on `store`'s database (each call a new instance).
    static func trail(_ store: PostgresLedgerStore) async throws -> PostgresAuditTrail {
        try await PostgresAuditTrail(configuration: store.configuration, ledger: LedgerFixture.settings())
    }

    @Test("appends make records 0..<n and a checkpoint every 3 that verify, beside unchanged audit rows")
    func appendsAndCheckpoints() async throws {
        let store = try await Self.freshStore()
        try await LedgerFixture.checkAppends(try await Self.trail(store), store: store) {
            try await Self.trail(store)
        }
        let rows = try await store.server.psql(
            "SELECT request_id || ':' || call || ':' || outcome FROM signerkit_audit ORDER BY id",
            database: store.database)
        let expected =
            LedgerFixture.requests.flatMap { request in (0..<request.records).map { "\(request.id):\($0):ok" } }
            + (0..<3).map { "req-later:\($0):ok" }
        #expect(rows.split(separator: "\n").map(String.init) == expected)
    }

    @Test("receipts by request id and by leaf verify against their checkpoint")
    func receipts() async throws {
        let store = try await Self.freshStore()
        try await LedgerFixture.checkReceipts(try await Self.trail(store), store: store)
    }

    @Test("a checkpoint row changed under the trail is not given out in a receipt")
    func receiptOfChangedCheckpoint() async throws {
        let store = try await Self.freshStore()
        try await LedgerFixture.checkReceiptOfChangedCheckpoint(try await Self.trail(store), store: store)
    }

    @Test(
        "the newest record deleted or changed under the trail stops its appends",
        arguments: LedgerFixture.tailChanges)
    func appendAfterChangedTail(change: String) async throws {
        let store = try await Self.freshStore()
        let trail = try await Self.trail(store)
        try await LedgerFixture.checkAppendAfterChangedTail(
            trail, store: store, change: change.replacingOccurrences(of: "TABLE", with: store.recordsTable))
    }

    @Test("a receipt for a record no checkpoint covers signs one of the current size")
    func receiptSignsCheckpoint() async throws {
        let store = try await Self.freshStore()
        try await LedgerFixture.checkReceiptSignsCheckpoint(try await Self.trail(store), store: store)
    }

    @Test("two instances on one database appending at once make one chain; either answers receipts")
    func twoInstances() async throws {
        let store = try await Self.freshStore()
        try await LedgerFixture.checkTwoTrails(
            [try await Self.trail(store), try await Self.trail(store)], store: store)
    }

    @Test(
        "tampering with the rows is found at the first changed record or checkpoint", arguments: LedgerTamper.allCases)
    func tampering(tamper: LedgerTamper) async throws {
        let store = try await Self.freshStore()
        try await tamper.check(try await Self.trail(store), store: store)
    }

    @Test("an instance does not open on a ledger whose records do not follow on")
    func refusesBrokenLedger() async throws {
        let store = try await Self.freshStore()
        #expect(await LedgerFixture.fill(try await Self.trail(store)))
        try await store.execute("DELETE FROM signerkit_ledger WHERE seq = 4")
        let error = await #expect(throws: AuditTrailError.self) { try await Self.trail(store) }
        #expect(error?.message.contains("record 4") == true, "\(String(describing: error))")
    }

    @Test("a trail without a ledger writes no ledger rows and answers no receipts")
    func withoutLedger() async throws {
        let store = try await Self.freshStore()
        let trail = try await PostgresAuditTrail(configuration: store.configuration)
        #expect(await LedgerFixture.fill(trail))
        await #expect(throws: AuditLedgerError.self) { try await trail.receipts(requestID: "req-0") }
        let error = await #expect(throws: AuditTrailError.self) { try await store.contents() }
        #expect(error?.message.contains("holds no audit ledger") == true, "\(String(describing: error))")
    }
}
