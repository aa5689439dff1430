import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitSQLite
import SignerKitService
import SignerKitTestSupport
import Testing

/// The SQLite stores' errors name the file they could not open.
@Suite("SQLite stores: errors name the file")
struct SQLiteFailureTests {
    static let path = "/nonexistent-dir/stores.sqlite"

    @Test("a path that cannot be a database is an error naming it, from the journal and the idempotency store")
    func badPath() {
        let journal = #expect(throws: JournalError.self) { try SQLiteTransactionJournal(path: Self.path) }
        #expect(journal?.description.contains(Self.path) == true, "\(String(describing: journal))")
        let store = #expect(throws: IdempotencyStoreError.self) { try SQLiteIdempotencyStore(path: Self.path) }
        #expect(store?.description.contains(Self.path) == true, "\(String(describing: store))")
    }
}

/// An outside client of the service's database file (an operator's `sqlite3`, a backup) must not take the
/// service's WAL away: the service's connections keep their locks.
@Suite("SQLite stores: an outside reader beside the service")
struct SQLiteOutsideReaderTests {
    /// Runs Python's `sqlite3` (a read-write connection, as the `sqlite3` shell opens one) on `path`: counts the
    /// journal's broadcasts, then closes, which checkpoints and deletes the WAL when it thinks it is the last
    /// connection.
    static func outsideCount(_ path: String) async throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                + "print(c.execute('select count(*) from broadcasts').fetchone()[0]); c.close()",
            path,
        ]
        let output = ChildProcess.makePipe()
        process.standardOutput = output
        try await ChildProcess.run(process)
        // A child process is the subject here: its exit is awaited on a thread of its own, bounded.
        let exited = await ChildProcess.onThread { ChildProcess.awaitExit(process, within: .seconds(30)) }
        try #require(exited && process.terminationStatus == 0, "python3 sqlite3 did not finish")
        let text = String(decoding: ChildProcess.readToEnd(output), as: UTF8.self)
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test("writes after an outside client closed its connection are seen by the next reader (the WAL survives)")
    func outsideReaderKeepsTheWAL() async throws {
        let path = try StoreBackend.temporaryFile()
        // As `signerkit serve` opens them: the journal and the idempotency store on one file.
        let journal = try SQLiteTransactionJournal(path: path)
        let store = try SQLiteIdempotencyStore(path: path)
        let chain = ChainID(eip155: 1)
        let account = try Address("0x2d5fd9e4a3a225a78329a64d022581275b4ca416")
        func entry(_ nonce: UInt64) -> JournalEntry {
            let raw = Array("raw \(nonce)".utf8)
            return JournalEntry(
                identity: ActionIdentity(idempotencyKey: "k\(nonce)", index: 0), chain: chain, account: account,
                nonce: UInt256(nonce), hash: Keccak256.hash(raw), rawTransaction: raw)
        }
        try await journal.record(entry(0))
        #expect(try await Self.outsideCount(path) == 1)
        try await journal.record(entry(1))
        _ = try await store.claim(client: "c", key: "k", requestHash: Keccak256.hash([1]), lease: .seconds(60))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the service's WAL is still there")
        // A second outside reader (as after a crash of the service) sees every committed write.
        #expect(try await Self.outsideCount(path) == 2, "a committed journal entry was lost with the WAL")
        withExtendedLifetime((journal, store)) {}
    }
}
