import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitSQLite
import Testing

/// The SQLite journal keeps the file journal's promises: durable records, the last resolution counts, rejected
/// nonces do not count, a held nonce is refused, concurrent writers all land.
@Suite("Transaction journal in SQLite")
struct SQLiteJournalTests {
    let path: String
    let account: Address
    let base = ChainID(eip155: 8453)

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-sqlite-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("journal.sqlite").path
        account = try Address("0x2d5fd9e4a3a225a78329a64d022581275b4ca416")
    }

    func entry(_ nonce: UInt64, identity: String = "k", chain: ChainID? = nil) -> JournalEntry {
        let raw = Array("raw transaction \(nonce) \(identity)".utf8)
        return JournalEntry(
            identity: ActionIdentity(idempotencyKey: identity, index: 0), chain: chain ?? base, account: account,
            nonce: UInt256(nonce), hash: Keccak256.hash(raw), rawTransaction: raw)
    }

    @Test("records survive a new instance; resolved entries are not unresolved; rejected nonces do not count")
    func roundTrip() async throws {
        let journal = try SQLiteTransactionJournal(path: path)
        let first = entry(4, identity: "a")
        let second = entry(300, identity: "b")
        try await journal.record(first)
        try await journal.record(second)
        let reopened = try SQLiteTransactionJournal(path: path)
        #expect(try await reopened.unresolvedEntry(for: first.identity) == first)
        #expect(try await reopened.highestNonce(chain: base, account: account) == 300, "numeric, not text, order")
        #expect(try await reopened.highestNonce(chain: ChainID(eip155: 10), account: account) == nil)
        try await reopened.resolve([first.hash], as: .reported)
        try await reopened.resolve([second.hash], as: .rejected)
        #expect(try await journal.unresolvedEntry(for: first.identity) == nil)
        #expect(try await journal.unresolvedEntry(for: second.identity) == nil)
        #expect(try await journal.highestNonce(chain: base, account: account) == 4)
        // The last resolution counts.
        try await journal.resolve([second.hash], as: .reported)
        #expect(try await journal.highestNonce(chain: base, account: account) == 300)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test("a nonce held by another unresolved entry is refused; the same entry may be recorded again")
    func nonceInUse() async throws {
        let journal = try SQLiteTransactionJournal(path: path)
        let held = entry(9, identity: "a")
        try await journal.record(held)
        try await journal.record(held)
        await #expect(throws: JournalError.nonceInUse(nonce: 9, hash: held.hash)) {
            try await journal.record(entry(9, identity: "b"))
        }
        try await journal.resolve([held.hash], as: .rejected)
        try await journal.record(entry(9, identity: "b"))
        #expect(try await journal.unresolvedEntry(for: entry(9, identity: "b").identity) == entry(9, identity: "b"))
    }

    @Test("many concurrent writers through separate instances: every record lands")
    func concurrentWriters() async throws {
        _ = try SQLiteTransactionJournal(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let journal = try SQLiteTransactionJournal(path: path)
                    for index in 0..<25 {
                        try await journal.record(entry(UInt64(writer * 100 + index), identity: "w\(writer)-\(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let journal = try SQLiteTransactionJournal(path: path)
        for writer in 0..<4 {
            for index in [0, 24] {
                let expected = entry(UInt64(writer * 100 + index), identity: "w\(writer)-\(index)")
                #expect(try await journal.unresolvedEntry(for: expected.identity) == expected)
            }
        }
        #expect(try await journal.highestNonce(chain: base, account: account) == 324)
    }

    @Test("a path that cannot be a database is an io error naming it")
    func badPath() {
        #expect(throws: JournalError.self) { try SQLiteTransactionJournal(path: "/nonexistent-dir/journal.sqlite") }
    }
}
