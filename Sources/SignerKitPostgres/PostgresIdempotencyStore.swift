import EthereumPrimitives
import SignerKit
import SignerKitSupport
import Synchronization

/// An ``IdempotencyStore`` in a PostgreSQL database, so a request retried on any instance of a deployment
/// gets its first answer back.
///
/// One row of `signerkit_idempotency` per (client, key), both stored as their UTF-8 bytes: the request's
/// hash, the answer once completed, and while it runs the lease's end by the server's clock and its owner (see
/// ``PostgresClaimOwner``). A claim inserts the row or locks the existing one (`FOR UPDATE`), so two instances
/// never both get ``IdempotencyClaim/claimed`` for one key.
///
/// A claim whose owner died is not left to its lease: once a journal recovery sweep that began after the owner
/// was gone has completed (``recoveryStarting()``, ``recoveryFinished(complete:)``), any instance may take it
/// over, and the retry runs — re-sending what the dead run journalled, never signing it anew.
public final class PostgresIdempotencyStore: IdempotencyStore {
    /// The database.
    public let configuration: PostgresConfiguration
    private let database: PostgresDatabase
    private let owner: PostgresClaimOwner
    private let takeover = Mutex(Takeover())

    /// Owners seen gone when the running recovery sweep began, and those whose claims may be taken over.
    private struct Takeover {
        var seenGone: Set<Int32> = []
        var abandoned: Set<Int32> = []
    }

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS signerkit_idempotency (
            client bytea NOT NULL, key bytea NOT NULL, request_hash bytea NOT NULL, answer bytea,
            expires timestamptz, PRIMARY KEY (client, key))
        """,
        // Claims of versions before owners were kept have none: they end by their lease.
        "ALTER TABLE signerkit_idempotency ADD COLUMN IF NOT EXISTS owner integer",
    ]

    /// Connects to the database of `configuration` and creates the store's table when it is missing.
    ///
    /// - Throws: ``IdempotencyStoreError`` naming the server and its message (never the password).
    public init(configuration: PostgresConfiguration) async throws(IdempotencyStoreError) {
        self.configuration = configuration
        database = PostgresDatabase(configuration: configuration)
        owner = PostgresClaimOwner(configuration: configuration)
        try await sql { () async throws(PostgresError) in try await database.createSchema(Self.schema) }
    }

    /// Claims `key` of `client` for `lease`: ``IdempotencyClaim/claimed`` when it is new, released, its claim
    /// lapsed or its owner's claims were handed over (always with the same request hash); the answer when it
    /// completed; ``IdempotencyClaim/inProgress`` while another claim is live; ``IdempotencyClaim/mismatch``
    /// whenever the key was first used with another hash.
    public func claim(client: String, key: String, requestHash: Bytes32, lease: Duration)
        async throws(IdempotencyStoreError) -> IdempotencyClaim
    {
        var me = try await sql { () async throws(PostgresError) in try await owner.current() }
        // The owner's session was found lost once: a new one, and one more try.
        for _ in 0..<2 {
            if let found = try await claim(client: client, key: key, requestHash: requestHash, lease: lease, as: me) {
                return found
            }
            let lost = me
            me = try await sql { () async throws(PostgresError) in try await owner.renew(replacing: lost) }
        }
        throw IdempotencyStoreError(
            "idempotency store \(configuration.endpoint): the claim owner's session was lost twice in a row")
    }

    /// One claim as owner `me`; `nil` when `me` no longer has a live session.
    private func claim(client: String, key: String, requestHash: Bytes32, lease: Duration, as me: Int32)
        async throws(IdempotencyStoreError) -> IdempotencyClaim?
    {
        let row: [PostgresValue] = [.bytes(Array(client.utf8)), .bytes(Array(key.utf8))]
        let claim: [PostgresValue] = [
            .bytes(requestHash.bytes), .text(String(lease.millisecondsRoundedUp)), .text(String(me)),
        ]
        let lockClass = PostgresClaimOwner.lockClassParameter
        let abandoned = takeover.withLock { $0.abandoned }
        let found = try await sql { () async throws(PostgresError) -> IdempotencyClaim?? in
            try await database.transaction { connection throws(PostgresError) -> IdempotencyClaim?? in
                let alive = try connection.query(
                    "SELECT \(PostgresClaimOwner.lives("$2::integer", lockClassParameter: "$1"))",
                    [lockClass, claim[2]])
                guard alive.first?.bool(0) == true else { return .some(nil) }
                // A row released between the insert that found it and the lock that follows: try again.
                for _ in 0..<Self.attempts {
                    let inserted = try connection.execute(
                        """
                        INSERT INTO signerkit_idempotency (client, key, request_hash, expires, owner)
                        VALUES ($1, $2, $3, clock_timestamp() + $4::bigint * interval '1 millisecond', $5::integer)
                        ON CONFLICT (client, key) DO NOTHING
                        """, row + claim)
                    if inserted.affected == 1 { return .claimed }
                    let rows = try connection.query(
                        """
                        SELECT request_hash, answer, coalesce(expires > clock_timestamp(), false), owner::text,
                        owner IS NOT NULL AND NOT \(PostgresClaimOwner.lives("owner", lockClassParameter: "$3"))
                        FROM signerkit_idempotency WHERE client = $1 AND key = $2 FOR UPDATE
                        """, row + [lockClass])
                    guard let existing = rows.first else { continue }
                    // A key stays bound to its first body, whatever became of that request.
                    guard existing.bytes(0) == requestHash.bytes else { return .mismatch }
                    if let answer = existing.bytes(1) { return .answered(answer) }
                    if existing.bool(2) {
                        guard existing.bool(4), let gone = existing.text(3).flatMap({ Int32($0) }),
                            abandoned.contains(gone)
                        else { return .inProgress }
                    }
                    try connection.execute(
                        """
                        UPDATE signerkit_idempotency
                        SET expires = clock_timestamp() + $3::bigint * interval '1 millisecond', owner = $4::integer
                        WHERE client = $1 AND key = $2
                        """, row + [claim[1], claim[2]])
                    return .claimed
                }
                return nil
            }
        }
        guard let found else {
            throw IdempotencyStoreError(
                "idempotency store \(configuration.endpoint): the key changed under every one of \(Self.attempts) claims"
            )
        }
        return found
    }

    /// Notes, as a journal recovery sweep begins, the owners of open claims whose session is gone.
    ///
    /// - Throws: ``IdempotencyStoreError`` when the store cannot be read (nothing is noted).
    public func recoveryStarting() async throws(IdempotencyStoreError) {
        let lockClass = PostgresClaimOwner.lockClassParameter
        let rows = try await sql { () async throws(PostgresError) -> [PostgresRow] in
            try await database.transaction { connection throws(PostgresError) -> [PostgresRow] in
                try connection.query(
                    """
                    SELECT DISTINCT owner::text FROM signerkit_idempotency
                    WHERE answer IS NULL AND expires > clock_timestamp() AND owner IS NOT NULL
                    AND NOT \(PostgresClaimOwner.lives("owner", lockClassParameter: "$1"))
                    """, [lockClass])
            }
        }
        let gone = Set(rows.compactMap { $0.text(0).flatMap { Int32($0) } })
        takeover.withLock { $0.seenGone = gone }
    }

    /// Ends the sweep ``recoveryStarting()`` began: when it was complete (every unresolved transaction is on its
    /// way or resolved), the claims of the owners it saw gone may be taken over. Returns how many owners that
    /// newly made so.
    @discardableResult
    public func recoveryFinished(complete: Bool) -> Int {
        takeover.withLock { state in
            defer { state.seenGone = [] }
            guard complete else { return 0 }
            let new = state.seenGone.subtracting(state.abandoned)
            state.abandoned.formUnion(new)
            return new.count
        }
    }

    /// Stores `answer` for the open claim of `key`.
    ///
    /// - Throws: ``IdempotencyStoreError`` when the key has no open claim (released, or already completed).
    /// A claim another instance took over is no longer this caller's: completing it fails.
    public func complete(client: String, key: String, answer: [UInt8]) async throws(IdempotencyStoreError) {
        let ownIDs = ownerIDs
        let changed = try await sql { () async throws(PostgresError) -> Int in
            try await database.transaction { connection throws(PostgresError) -> Int in
                try connection.execute(
                    """
                    UPDATE signerkit_idempotency SET answer = $3, expires = NULL
                    WHERE client = $1 AND key = $2 AND answer IS NULL AND expires IS NOT NULL
                    AND (owner IS NULL OR owner = ANY($4::integer[]))
                    """, [.bytes(Array(client.utf8)), .bytes(Array(key.utf8)), .bytes(answer), ownIDs]
                ).affected
            }
        }
        guard changed == 1 else {
            throw IdempotencyStoreError(
                "idempotency store \(configuration.endpoint): the key has no open claim to complete")
        }
    }

    /// Ends the open claim of `key`; the key stays bound to its request hash (a completed answer stays).
    /// A claim another instance took over is left alone.
    public func release(client: String, key: String) async throws(IdempotencyStoreError) {
        let ownIDs = ownerIDs
        try await sql { () async throws(PostgresError) in
            try await database.transaction { connection throws(PostgresError) -> Void in
                try connection.execute(
                    """
                    UPDATE signerkit_idempotency SET expires = NULL WHERE client = $1 AND key = $2 AND answer IS NULL
                    AND (owner IS NULL OR owner = ANY($3::integer[]))
                    """, [.bytes(Array(client.utf8)), .bytes(Array(key.utf8)), ownIDs])
            }
        }
    }

    /// This handle's owner ids as an `integer[]` parameter (claims of versions that kept no owner are anyone's).
    private var ownerIDs: PostgresValue {
        .text("{" + owner.ids.map { String($0) }.joined(separator: ",") + "}")
    }

    /// How often a claim looks again for a row that vanished under it.
    private static let attempts = 3

    /// Runs database work, turning its failure into an ``IdempotencyStoreError``.
    private func sql<T>(_ body: () async throws(PostgresError) -> T) async throws(IdempotencyStoreError) -> T {
        do { return try await body() } catch { throw IdempotencyStoreError("idempotency store \(error)") }
    }
}
