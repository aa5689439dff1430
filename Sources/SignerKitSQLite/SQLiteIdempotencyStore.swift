import Dispatch
import EthereumPrimitives
import SignerKit
import SignerKitSupport

/// An ``IdempotencyStore`` in an SQLite database, so a retried request gets its first answer back after a
/// restart too. It may share its file with ``SQLiteTransactionJournal`` (a table of its own).
///
/// One row per (client, key): the request's hash, the answer once completed, and while it runs the lease's
/// end by SQLite's clock. Every claim is one `BEGIN IMMEDIATE` transaction, so processes sharing the file never
/// both get ``IdempotencyClaim/claimed`` for one key. Client names and keys are stored as their UTF-8 bytes.
/// Calls run on a serial queue of their own, off the cooperative pool.
public final class SQLiteIdempotencyStore: IdempotencyStore {
    /// The database file.
    public let path: String
    private let database: SQLiteDatabase
    private let queue = DispatchQueue(label: "SignerKit.SQLiteIdempotencyStore")

    static let schema = """
        CREATE TABLE IF NOT EXISTS idempotency_keys (
            client BLOB NOT NULL, key BLOB NOT NULL, request_hash BLOB NOT NULL, answer BLOB, expires REAL,
            PRIMARY KEY (client, key));
        """

    /// Opens (creating) the store in the database at `path`.
    ///
    /// - Throws: ``IdempotencyStoreError`` naming the file and SQLite's message.
    public init(path: String) throws(IdempotencyStoreError) {
        self.path = path
        do {
            database = try SQLiteDatabase(path: path)
            try database.execute(Self.schema)
        } catch {
            throw IdempotencyStoreError("idempotency store \(error)")
        }
    }

    /// Claims `key` of `client` for `lease`: ``IdempotencyClaim/claimed`` when it is new, released or its claim
    /// lapsed (with the same request hash); the answer when it completed; ``IdempotencyClaim/inProgress`` while
    /// another claim is live; ``IdempotencyClaim/mismatch`` whenever the key was first used with another hash.
    public func claim(client: String, key: String, requestHash: Bytes32, lease: Duration)
        async throws(IdempotencyStoreError) -> IdempotencyClaim
    {
        let seconds = lease.secondsValue
        return try await queue.perform { () throws(IdempotencyStoreError) -> IdempotencyClaim in
            try self.sql { () throws(SQLiteError) -> IdempotencyClaim in
                try self.database.transaction { () throws(SQLiteError) -> IdempotencyClaim in
                    let row: [SQLiteValue] = [.blob(Array(client.utf8)), .blob(Array(key.utf8))]
                    var found: (hash: [UInt8], answer: [UInt8]?, live: Bool)?
                    try self.database.query(
                        """
                        SELECT request_hash, answer, expires > \(SQLiteDatabase.now) FROM idempotency_keys
                        WHERE client = ? AND key = ?
                        """, row
                    ) { columns in
                        found = (columns.blob(0) ?? [], columns.blob(1), columns.integer(2) != 0)
                    }
                    if let found {
                        // A key stays bound to its first body, whatever became of that request.
                        guard found.hash == requestHash.bytes else { return .mismatch }
                        if let answer = found.answer { return .answered(answer) }
                        if found.live { return .inProgress }
                    }
                    try self.database.query(
                        """
                        INSERT OR REPLACE INTO idempotency_keys (client, key, request_hash, answer, expires)
                        VALUES (?, ?, ?, NULL, \(SQLiteDatabase.now) + ?)
                        """, row + [.blob(requestHash.bytes), .real(seconds)])
                    return .claimed
                }
            }
        }
    }

    /// Stores `answer` for the open claim of `key`.
    ///
    /// - Throws: ``IdempotencyStoreError`` when the key has no open claim (released, or already completed).
    public func complete(client: String, key: String, answer: [UInt8]) async throws(IdempotencyStoreError) {
        try await queue.perform { () throws(IdempotencyStoreError) in
            let changed = try self.sql { () throws(SQLiteError) -> Int in
                try self.database.query(
                    """
                    UPDATE idempotency_keys SET answer = ?, expires = NULL
                    WHERE client = ? AND key = ? AND answer IS NULL AND expires IS NOT NULL
                    """, [.blob(answer), .blob(Array(client.utf8)), .blob(Array(key.utf8))])
                return self.database.changes
            }
            guard changed == 1 else {
                throw IdempotencyStoreError("idempotency store \(self.path): the key has no open claim to complete")
            }
        }
    }

    /// Ends the open claim of `key`; the key stays bound to its request hash (a completed answer stays).
    public func release(client: String, key: String) async throws(IdempotencyStoreError) {
        try await queue.perform { () throws(IdempotencyStoreError) in
            try self.sql { () throws(SQLiteError) in
                try self.database.query(
                    "UPDATE idempotency_keys SET expires = NULL WHERE client = ? AND key = ? AND answer IS NULL",
                    [.blob(Array(client.utf8)), .blob(Array(key.utf8))])
            }
        }
    }

    /// Ends every open claim and returns how many there were: for the one instance on this file (it holds the
    /// ``SQLiteInstanceLock``) at start-up, once its journal recovery has run, every open claim is one a killed
    /// earlier run left — so a retry of its key runs now instead of being told 409 until the lease lapses. The
    /// keys stay bound to their request hashes; a retry re-sends the journalled transaction, never a new one.
    public func releaseOpenClaims() async throws(IdempotencyStoreError) -> Int {
        try await queue.perform { () throws(IdempotencyStoreError) -> Int in
            try self.sql { () throws(SQLiteError) -> Int in
                try self.database.query(
                    "UPDATE idempotency_keys SET expires = NULL WHERE answer IS NULL AND expires IS NOT NULL", [])
                return self.database.changes
            }
        }
    }

    /// Runs an SQLite step, turning its failure into an ``IdempotencyStoreError``.
    private func sql<T>(_ body: () throws(SQLiteError) -> T) throws(IdempotencyStoreError) -> T {
        do { return try body() } catch { throw IdempotencyStoreError("idempotency store \(error)") }
    }
}
