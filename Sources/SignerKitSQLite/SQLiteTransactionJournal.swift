import Dispatch
import EthereumPrimitives
import SignerKit
import SignerKitSupport

/// A ``TransactionJournal`` in an SQLite database: the signer service's default, so one instance survives a
/// restart (or a crash between signing and broadcasting) without sending a payment twice.
///
/// Every change is one `BEGIN IMMEDIATE` transaction committed with a full fsync (WAL); several processes may
/// share the file (SQLite's locking, a 5 s busy wait). Calls run on a serial queue of their own, off the
/// cooperative pool. The semantics are ``FileTransactionJournal``'s: entries in order, the last resolution of
/// a hash counts. Nonce reservations are rows of their own (see
/// ``reserveNonce(chain:account:atLeast:lease:)``), so processes sharing the file never pick one nonce twice.
public final class SQLiteTransactionJournal: TransactionJournal {
    /// The database file.
    public let path: String
    let database: SQLiteDatabase
    let queue = DispatchQueue(label: "SignerKit.SQLiteTransactionJournal")

    static let schema = """
        CREATE TABLE IF NOT EXISTS broadcasts (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, hash BLOB NOT NULL, identity BLOB NOT NULL, chain TEXT NOT NULL,
            account TEXT NOT NULL, nonce BLOB NOT NULL, raw BLOB NOT NULL);
        CREATE INDEX IF NOT EXISTS broadcasts_identity ON broadcasts (identity);
        CREATE INDEX IF NOT EXISTS broadcasts_nonce ON broadcasts (chain, account, nonce);
        CREATE TABLE IF NOT EXISTS outcomes (hash BLOB PRIMARY KEY, outcome TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS reservations (
            chain TEXT NOT NULL, account TEXT NOT NULL, nonce BLOB NOT NULL, expires REAL NOT NULL,
            PRIMARY KEY (chain, account, nonce));
        CREATE TABLE IF NOT EXISTS call_batches (
            id TEXT PRIMARY KEY, digest BLOB NOT NULL, chain TEXT NOT NULL, account TEXT NOT NULL,
            calls TEXT NOT NULL, execution TEXT NOT NULL, delegate TEXT);
        """

    /// Opens (creating) the journal at `path`.
    ///
    /// - Throws: ``JournalError/io(_:)`` naming the file and SQLite's message.
    public init(path: String) throws(JournalError) {
        self.path = path
        do {
            database = try SQLiteDatabase(path: path)
            try database.execute(Self.schema)
        } catch {
            throw .io("\(error)")
        }
    }

    /// Stores `entry` (committed and synced when this returns) and ends the reservation of its nonce, in one
    /// transaction.
    public func record(_ entry: JournalEntry) async throws(JournalError) {
        try await queue.perform { () throws(JournalError) in
            let conflict = try self.sql { () throws(SQLiteError) -> JournalError? in
                try self.database.transaction { () throws(SQLiteError) -> JournalError? in
                    if let holder = try self.unresolvedHolder(of: entry), holder != entry.hash {
                        return .nonceInUse(nonce: entry.nonce, hash: holder)
                    }
                    if let answering = try self.unresolvedAnswer(to: entry), answering != entry.hash {
                        return .actionInFlight(hash: answering)
                    }
                    try self.database.query(
                        "INSERT INTO broadcasts (hash, identity, chain, account, nonce, raw) VALUES (?, ?, ?, ?, ?, ?)",
                        [
                            .blob(entry.hash.bytes), .blob(entry.identity.digest.bytes), .text(entry.chain.description),
                            .text(entry.account.lowercased), .blob(entry.nonce.word.bytes), .blob(entry.rawTransaction),
                        ])
                    try self.database.query(
                        "DELETE FROM reservations WHERE chain = ? AND account = ? AND nonce = ?",
                        [
                            .text(entry.chain.description), .text(entry.account.lowercased),
                            .blob(entry.nonce.word.bytes),
                        ])
                    return nil
                }
            }
            if let conflict { throw conflict }
        }
    }

    /// Marks these hashes resolved with `outcome`.
    public func resolve(_ hashes: [Bytes32], as outcome: JournalOutcome) async throws(JournalError) {
        guard !hashes.isEmpty else { return }
        try await queue.perform { () throws(JournalError) in
            try self.sql { () throws(SQLiteError) in
                try self.database.transaction { () throws(SQLiteError) in
                    for hash in hashes {
                        try self.database.query(
                            "INSERT OR REPLACE INTO outcomes (hash, outcome) VALUES (?, ?)",
                            [.blob(hash.bytes), .text(outcome.rawValue)])
                    }
                }
            }
        }
    }

    /// The newest entry for `identity` that is unresolved or, when `includingReported`, reported.
    public func entry(for identity: ActionIdentity, includingReported: Bool) async throws(JournalError)
        -> JournalEntry?
    {
        let excluded = includingReported ? "AND o.outcome = 'rejected'" : ""
        return try await entries(
            """
            SELECT hash, identity, chain, account, nonce, raw FROM broadcasts b WHERE identity = ?
            AND NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.hash = b.hash \(excluded)) ORDER BY seq DESC LIMIT 1
            """, [.blob(identity.digest.bytes)]
        ).first
    }

    /// Every unresolved entry, oldest first.
    public func unresolvedEntries() async throws(JournalError) -> [JournalEntry] {
        try await entries(
            """
            SELECT hash, identity, chain, account, nonce, raw FROM broadcasts b
            WHERE NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.hash = b.hash) ORDER BY seq
            """, [])
    }

    /// The entries a query of `broadcasts` rows selects, in its order.
    private func entries(_ query: String, _ parameters: [SQLiteValue]) async throws(JournalError) -> [JournalEntry] {
        try await queue.perform { () throws(JournalError) in
            try self.sql { () throws(SQLiteError) -> [JournalEntry] in
                var found: [JournalEntry] = []
                var corrupt = false
                try self.database.query(query, parameters) { row in
                    guard let entry = Self.entry(row) else { return corrupt = true }
                    found.append(entry)
                }
                if corrupt { throw SQLiteError(path: self.path, message: "a broadcasts row does not decode") }
                return found
            }
        }
    }

    /// The highest nonce of a non-rejected entry for `account` on `chain`.
    public func highestNonce(chain: ChainID, account: Address) async throws(JournalError) -> UInt256? {
        try await queue.perform { () throws(JournalError) in
            try self.sql { () throws(SQLiteError) -> UInt256? in
                var highest: UInt256?
                // Nonces are stored as 32-byte big-endian words, so the byte order is the numeric order.
                try self.database.query(
                    """
                    SELECT max(nonce) FROM broadcasts b WHERE chain = ? AND account = ? AND NOT EXISTS
                    (SELECT 1 FROM outcomes o WHERE o.hash = b.hash AND o.outcome = 'rejected')
                    """, [.text(chain.description), .text(account.lowercased)]
                ) { row in
                    highest = row.blob(0).flatMap { UInt256(bigEndian: $0) }
                }
                return highest
            }
        }
    }

    /// The hash of the unresolved entry holding `entry`'s nonce for its account and chain.
    private func unresolvedHolder(of entry: JournalEntry) throws(SQLiteError) -> Bytes32? {
        var holder: Bytes32?
        try database.query(
            """
            SELECT hash FROM broadcasts b WHERE chain = ? AND account = ? AND nonce = ?
            AND NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.hash = b.hash) ORDER BY seq DESC LIMIT 1
            """, [.text(entry.chain.description), .text(entry.account.lowercased), .blob(entry.nonce.word.bytes)]
        ) { row in
            holder = row.blob(0).flatMap { Bytes32($0) }
        }
        return holder
    }

    /// The hash of the newest unresolved entry with the identity of `entry`.
    private func unresolvedAnswer(to entry: JournalEntry) throws(SQLiteError) -> Bytes32? {
        var answering: Bytes32?
        try database.query(
            """
            SELECT hash FROM broadcasts b WHERE identity = ?
            AND NOT EXISTS (SELECT 1 FROM outcomes o WHERE o.hash = b.hash) ORDER BY seq DESC LIMIT 1
            """, [.blob(entry.identity.digest.bytes)]
        ) { row in
            answering = row.blob(0).flatMap { Bytes32($0) }
        }
        return answering
    }

    /// A row of `broadcasts` as an entry (`nil` when it does not decode).
    private static func entry(_ row: SQLiteRow) -> JournalEntry? {
        guard let hash = row.blob(0).flatMap({ Bytes32($0) }),
            let identity = row.blob(1).flatMap({ Bytes32($0) }),
            let chain = row.text(2).flatMap({ try? ChainID($0) }),
            let account = row.text(3).flatMap({ try? Address($0) }),
            let nonce = row.blob(4).flatMap({ UInt256(bigEndian: $0) }), let raw = row.blob(5)
        else { return nil }
        return JournalEntry(
            identity: ActionIdentity(digest: identity), chain: chain, account: account, nonce: nonce, hash: hash,
            rawTransaction: raw)
    }

    /// Runs an SQLite step, turning its failure into ``JournalError/io(_:)``.
    func sql<T>(_ body: () throws(SQLiteError) -> T) throws(JournalError) -> T {
        do { return try body() } catch { throw .io("transaction journal \(error)") }
    }
}
