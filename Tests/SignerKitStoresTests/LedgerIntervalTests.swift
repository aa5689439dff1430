import Foundation
import SignerKit
import SignerKitPostgres
import SignerKitSQLite
import SignerKitService
import SignerKitTestSupport
import Testing

/// `checkpointIntervalSeconds`: a ledger that gets fewer records than `checkpointEvery` still gets a checkpoint
/// once the interval has passed on its clock — in the file, SQLite and PostgreSQL — and none while nothing new
/// came in.
@Suite("Audit ledger checkpoints by time")
struct LedgerIntervalTests {
    /// A checkpoint every 1,000 records or every 60 s, at `clock`'s time.
    static func settings(_ clock: AuditLogLedgerTests.DateClock) -> AuditLedgerSettings {
        AuditLedgerSettings(
            signer: TestKeys.wallet, origin: "interval.test/audit", checkpointEvery: 1_000,
            checkpointInterval: .seconds(60), now: { clock.now })
    }

    /// Appends two records, then checks the interval: nothing before 60 s, one checkpoint of 2 records after,
    /// none more without new records, and a new one 60 s after a third record. `checkpoints` reads what the
    /// store holds.
    static func exercise(
        _ ledger: any AuditLedger, clock: AuditLogLedgerTests.DateClock,
        checkpoints: () async throws -> [String]
    ) async throws {
        let record = CallRecord(client: "app", method: "personal_sign")
        #expect(await ledger.append([record, record], requestID: "r1", at: clock.now))
        await ledger.checkpointIfStale()
        #expect(try await checkpoints().isEmpty, "the interval has not passed")
        clock.advance(seconds: 59)
        await ledger.checkpointIfStale()
        #expect(try await checkpoints().isEmpty, "59 s is less than the interval")
        clock.advance(seconds: 1)
        await ledger.checkpointIfStale()
        let first = try await checkpoints()
        #expect(first.count == 1)
        let verified = try SignedNote(parsing: try #require(first.first)).verify(
            keyName: "interval.test/audit", address: TestKeys.wallet.address)
        #expect(verified.size == 2 && verified.time == Int64(clock.now.timeIntervalSince1970))
        clock.advance(seconds: 600)
        await ledger.checkpointIfStale()
        #expect(try await checkpoints().count == 1, "no record came in: no new checkpoint")
        #expect(await ledger.append([record], requestID: "r2", at: clock.now))
        clock.advance(seconds: 60)
        await ledger.checkpointIfStale()
        #expect(try await checkpoints().count == 2)
    }

    @Test("the audit log file")
    func file() async throws {
        let clock = AuditLogLedgerTests.DateClock()
        let path = try AuditLogLedgerTests.temporaryPath()
        let log = try AuditLog(path: path, ledger: Self.settings(clock))
        try await Self.exercise(log, clock: clock) {
            LedgerLogFile.lines(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                .compactMap { if case .checkpoint(let note) = $0.line { note } else { nil } }
        }
        let summary = try LedgerVerifier.verify(
            log: Array(try Data(contentsOf: URL(fileURLWithPath: path))), key: TestKeys.wallet.address)
        #expect(summary.records == 3 && summary.checkpoints == 2)
    }

    @Test("SQLite")
    func sqlite() async throws {
        let clock = AuditLogLedgerTests.DateClock()
        let path = try StoreBackend.temporaryFile()
        let trail = try SQLiteAuditTrail(path: path, ledger: Self.settings(clock))
        try await Self.exercise(trail, clock: clock) { try SQLiteAuditTrail.ledgerContents(path: path).checkpoints }
    }

    @Test("PostgreSQL")
    func postgres() async throws {
        let clock = AuditLogLedgerTests.DateClock()
        let store = try await PostgresLedgerTests.freshStore()
        let trail = try await PostgresAuditTrail(configuration: store.configuration, ledger: Self.settings(clock))
        try await Self.exercise(trail, clock: clock) {
            try await PostgresAuditTrail.ledgerContents(configuration: store.configuration).checkpoints
        }
    }
}
