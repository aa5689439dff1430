import SignerKit
import SignerKitSQLite
import SignerKitService
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
