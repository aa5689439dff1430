import EthereumPrimitives
import SignerKit

/// A ``TransactionJournal`` in a PostgreSQL database, shared by every signer-service instance of a
/// deployment, so no two of them sign one nonce and a retry on any instance re-sends, never re-signs.
///
/// The semantics are ``FileTransactionJournal``'s (entries in order, the last resolution of a hash counts);
/// nonces are stored as 32-byte big-endian `bytea`, whose byte order is the numeric order. Recording and
/// reserving hold the row lock of the account's lane (`signerkit_lanes`), so the check for a holder of the
/// nonce and the write that follows it are one step for every instance. Commits are durable by the server's
/// settings (`synchronous_commit`).
public final class PostgresTransactionJournal: TransactionJournal {
    /// The database.
    public let configuration: PostgresConfiguration
    let database: PostgresDatabase

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS signerkit_broadcasts (
            seq bigserial PRIMARY KEY, hash bytea NOT NULL, identity bytea NOT NULL, chain text NOT NULL,
            account text NOT NULL, nonce bytea NOT NULL, raw bytea NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS signerkit_broadcasts_identity ON signerkit_broadcasts (identity)",
        "CREATE INDEX IF NOT EXISTS signerkit_broadcasts_nonce ON signerkit_broadcasts (chain, account, nonce)",
        "CREATE TABLE IF NOT EXISTS signerkit_outcomes (hash bytea PRIMARY KEY, outcome text NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS signerkit_lanes (chain text NOT NULL, account text NOT NULL,
            PRIMARY KEY (chain, account))
        """,
        """
        CREATE TABLE IF NOT EXISTS signerkit_reservations (
            chain text NOT NULL, account text NOT NULL, nonce bytea NOT NULL, expires timestamptz NOT NULL,
            PRIMARY KEY (chain, account, nonce))
        """,
        """
        CREATE TABLE IF NOT EXISTS signerkit_call_batches (
            id text PRIMARY KEY, digest bytea NOT NULL, chain text NOT NULL, account text NOT NULL,
            calls text NOT NULL, execution text NOT NULL, delegate text)
        """,
    ]

    /// Connects to the database of `configuration` and creates the journal's tables when they are missing.
    ///
    /// - Throws: ``JournalError/io(_:)`` naming the server and its message (never the password).
    public init(configuration: PostgresConfiguration) async throws(JournalError) {
        self.configuration = configuration
        database = PostgresDatabase(configuration: configuration)
        try await sql { () async throws(PostgresError) in try await database.createSchema(Self.schema) }
    }

    /// Stores `entry` (committed when this returns) and ends the reservation of its nonce, under the lane's
    /// row lock.
    ///
    /// - Throws: ``JournalError/nonceInUse(nonce:hash:)`` when another unresolved entry holds the nonce.
    public func record(_ entry: JournalEntry) async throws(JournalError) {
        let conflict = try await sql { () async throws(PostgresError) -> JournalError? in
            try await database.transaction { connection throws(PostgresError) -> JournalError? in
                let lane = try Self.lockLane(chain: entry.chain, account: entry.account, on: connection)
                let nonce = PostgresValue.bytes(entry.nonce.word.bytes)
                let holders = try connection.query(
                    """
                    SELECT hash FROM signerkit_broadcasts b WHERE chain = $1 AND account = $2 AND nonce = $3
                    AND NOT EXISTS (SELECT 1 FROM signerkit_outcomes o WHERE o.hash = b.hash) ORDER BY seq DESC LIMIT 1
                    """, lane + [nonce])
                if let holder = holders.first?.bytes(0).flatMap({ Bytes32($0) }), holder != entry.hash {
                    return .nonceInUse(nonce: entry.nonce, hash: holder)
                }
                // Two runs of one action share its lane (its account and chain), locked above.
                let answering = try connection.query(
                    """
                    SELECT hash FROM signerkit_broadcasts b WHERE identity = $1
                    AND NOT EXISTS (SELECT 1 FROM signerkit_outcomes o WHERE o.hash = b.hash) ORDER BY seq DESC LIMIT 1
                    """, [.bytes(entry.identity.digest.bytes)])
                if let answer = answering.first?.bytes(0).flatMap({ Bytes32($0) }), answer != entry.hash {
                    return .actionInFlight(hash: answer)
                }
                try connection.execute(
                    """
                    INSERT INTO signerkit_broadcasts (hash, identity, chain, account, nonce, raw)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    """,
                    [.bytes(entry.hash.bytes), .bytes(entry.identity.digest.bytes)] + lane
                        + [nonce, .bytes(entry.rawTransaction)])
                try connection.execute(
                    "DELETE FROM signerkit_reservations WHERE chain = $1 AND account = $2 AND nonce = $3",
                    lane + [nonce])
                return nil
            }
        }
        if let conflict { throw conflict }
    }

    /// Marks these hashes resolved with `outcome` (one transaction).
    public func resolve(_ hashes: [Bytes32], as outcome: JournalOutcome) async throws(JournalError) {
        guard !hashes.isEmpty else { return }
        try await sql { () async throws(PostgresError) in
            try await database.transaction { connection throws(PostgresError) in
                for hash in hashes {
                    try connection.execute(
                        """
                        INSERT INTO signerkit_outcomes (hash, outcome) VALUES ($1, $2)
                        ON CONFLICT (hash) DO UPDATE SET outcome = EXCLUDED.outcome
                        """, [.bytes(hash.bytes), .text(outcome.rawValue)])
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
            SELECT hash, identity, chain, account, nonce, raw FROM signerkit_broadcasts b WHERE identity = $1
            AND NOT EXISTS (SELECT 1 FROM signerkit_outcomes o WHERE o.hash = b.hash \(excluded))
            ORDER BY seq DESC LIMIT 1
            """, [.bytes(identity.digest.bytes)]
        ).first
    }

    /// Every unresolved entry, oldest first.
    public func unresolvedEntries() async throws(JournalError) -> [JournalEntry] {
        try await entries(
            """
            SELECT hash, identity, chain, account, nonce, raw FROM signerkit_broadcasts b
            WHERE NOT EXISTS (SELECT 1 FROM signerkit_outcomes o WHERE o.hash = b.hash) ORDER BY seq
            """, [])
    }

    /// The entries a query of `signerkit_broadcasts` rows selects, in its order.
    private func entries(_ query: String, _ parameters: [PostgresValue]) async throws(JournalError) -> [JournalEntry] {
        let rows = try await sql { () async throws(PostgresError) -> [PostgresRow] in
            try await database.transaction { connection throws(PostgresError) -> [PostgresRow] in
                try connection.query(query, parameters)
            }
        }
        var found: [JournalEntry] = []
        for row in rows {
            guard let entry = Self.entry(row) else {
                throw .io("transaction journal \(configuration.endpoint): a signerkit_broadcasts row does not decode")
            }
            found.append(entry)
        }
        return found
    }

    /// The highest nonce of a non-rejected entry for `account` on `chain`.
    public func highestNonce(chain: ChainID, account: Address) async throws(JournalError) -> UInt256? {
        let rows = try await sql { () async throws(PostgresError) -> [PostgresRow] in
            try await database.transaction { connection throws(PostgresError) -> [PostgresRow] in
                try connection.query(
                    """
                    SELECT nonce FROM signerkit_broadcasts b WHERE chain = $1 AND account = $2 AND NOT EXISTS
                    (SELECT 1 FROM signerkit_outcomes o WHERE o.hash = b.hash AND o.outcome = 'rejected')
                    ORDER BY nonce DESC LIMIT 1
                    """, Self.lane(chain: chain, account: account))
            }
        }
        guard let row = rows.first else { return nil }
        guard let nonce = row.bytes(0).flatMap({ UInt256(bigEndian: $0) }) else {
            throw .io("transaction journal \(configuration.endpoint): a nonce does not decode")
        }
        return nonce
    }

    /// The lane's key as statement parameters `$1` (chain) and `$2` (account, lower case).
    static func lane(chain: ChainID, account: Address) -> [PostgresValue] {
        [.text(chain.description), .text(account.lowercased)]
    }

    /// Creates the lane's row if needed and locks it (`FOR UPDATE`) until the transaction ends; the lane's
    /// key as parameters.
    static func lockLane(chain: ChainID, account: Address, on connection: PostgresConnection)
        throws(PostgresError) -> [PostgresValue]
    {
        let lane = lane(chain: chain, account: account)
        try connection.execute(
            "INSERT INTO signerkit_lanes (chain, account) VALUES ($1, $2) ON CONFLICT DO NOTHING", lane)
        try connection.execute("SELECT 1 FROM signerkit_lanes WHERE chain = $1 AND account = $2 FOR UPDATE", lane)
        return lane
    }

    /// A row of `signerkit_broadcasts` as an entry (`nil` when it does not decode).
    private static func entry(_ row: PostgresRow) -> JournalEntry? {
        guard let hash = row.bytes(0).flatMap({ Bytes32($0) }),
            let identity = row.bytes(1).flatMap({ Bytes32($0) }),
            let chain = row.text(2).flatMap({ try? ChainID($0) }),
            let account = row.text(3).flatMap({ try? Address($0) }),
            let nonce = row.bytes(4).flatMap({ UInt256(bigEndian: $0) }), let raw = row.bytes(5)
        else { return nil }
        return JournalEntry(
            identity: ActionIdentity(digest: identity), chain: chain, account: account, nonce: nonce, hash: hash,
            rawTransaction: raw)
    }

    /// Runs database work, turning its failure into ``JournalError/io(_:)``.
    func sql<T>(_ body: () async throws(PostgresError) -> T) async throws(JournalError) -> T {
        do { return try await body() } catch { throw .io("transaction journal \(error)") }
    }
}
