import EthereumPrimitives
import SignerKit
import SignerKitSupport

/// An ``IdempotencyStore`` in a PostgreSQL database, so a request retried on any instance of a deployment
/// gets its first answer back.
///
/// One row of `signerkit_idempotency` per (client, key), both stored as their UTF-8 bytes: the request's
/// hash, the answer once completed, and while it runs the lease's end by the server's clock. A claim inserts
/// the row or locks the existing one (`FOR UPDATE`), so two instances never both get
/// ``IdempotencyClaim/claimed`` for one key.
public final class PostgresIdempotencyStore: IdempotencyStore {
    /// The database.
    public let configuration: PostgresConfiguration
    private let database: PostgresDatabase

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS signerkit_idempotency (
            client bytea NOT NULL, key bytea NOT NULL, request_hash bytea NOT NULL, answer bytea,
            expires timestamptz, PRIMARY KEY (client, key))
        """
    ]

    /// Connects to the database of `configuration` and creates the store's table when it is missing.
    ///
    /// - Throws: ``IdempotencyStoreError`` naming the server and its message (never the password).
    public init(configuration: PostgresConfiguration) async throws(IdempotencyStoreError) {
        self.configuration = configuration
        database = PostgresDatabase(configuration: configuration)
        try await sql { () async throws(PostgresError) in try await database.createSchema(Self.schema) }
    }

    /// Claims `key` of `client` for `lease`: ``IdempotencyClaim/claimed`` when it is new, released or its claim
    /// lapsed (with the same request hash); the answer when it completed; ``IdempotencyClaim/inProgress`` while
    /// another claim is live; ``IdempotencyClaim/mismatch`` whenever the key was first used with another hash.
    public func claim(client: String, key: String, requestHash: Bytes32, lease: Duration)
        async throws(IdempotencyStoreError) -> IdempotencyClaim
    {
        let row: [PostgresValue] = [.bytes(Array(client.utf8)), .bytes(Array(key.utf8))]
        let claim: [PostgresValue] = [.bytes(requestHash.bytes), .text(String(lease.millisecondsRoundedUp))]
        let found = try await sql { () async throws(PostgresError) -> IdempotencyClaim? in
            try await database.transaction { connection throws(PostgresError) -> IdempotencyClaim? in
                // A row released between the insert that found it and the lock that follows: try again.
                for _ in 0..<Self.attempts {
                    let inserted = try connection.execute(
                        """
                        INSERT INTO signerkit_idempotency (client, key, request_hash, expires)
                        VALUES ($1, $2, $3, clock_timestamp() + $4::bigint * interval '1 millisecond')
                        ON CONFLICT (client, key) DO NOTHING
                        """, row + claim)
                    if inserted.affected == 1 { return .claimed }
                    let rows = try connection.query(
                        """
                        SELECT request_hash, answer, coalesce(expires > clock_timestamp(), false)
                        FROM signerkit_idempotency WHERE client = $1 AND key = $2 FOR UPDATE
                        """, row)
                    guard let existing = rows.first else { continue }
                    // A key stays bound to its first body, whatever became of that request.
                    guard existing.bytes(0) == requestHash.bytes else { return .mismatch }
                    if let answer = existing.bytes(1) { return .answered(answer) }
                    if existing.bool(2) { return .inProgress }
                    try connection.execute(
                        """
                        UPDATE signerkit_idempotency
                        SET expires = clock_timestamp() + $3::bigint * interval '1 millisecond'
                        WHERE client = $1 AND key = $2
                        """, row + [claim[1]])
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

    /// Stores `answer` for the open claim of `key`.
    ///
    /// - Throws: ``IdempotencyStoreError`` when the key has no open claim (released, or already completed).
    public func complete(client: String, key: String, answer: [UInt8]) async throws(IdempotencyStoreError) {
        let changed = try await sql { () async throws(PostgresError) -> Int in
            try await database.transaction { connection throws(PostgresError) -> Int in
                try connection.execute(
                    """
                    UPDATE signerkit_idempotency SET answer = $3, expires = NULL
                    WHERE client = $1 AND key = $2 AND answer IS NULL AND expires IS NOT NULL
                    """, [.bytes(Array(client.utf8)), .bytes(Array(key.utf8)), .bytes(answer)]
                ).affected
            }
        }
        guard changed == 1 else {
            throw IdempotencyStoreError(
                "idempotency store \(configuration.endpoint): the key has no open claim to complete")
        }
    }

    /// Ends the open claim of `key`; the key stays bound to its request hash (a completed answer stays).
    public func release(client: String, key: String) async throws(IdempotencyStoreError) {
        try await sql { () async throws(PostgresError) in
            try await database.transaction { connection throws(PostgresError) -> Void in
                try connection.execute(
                    "UPDATE signerkit_idempotency SET expires = NULL WHERE client = $1 AND key = $2 AND answer IS NULL",
                    [.bytes(Array(client.utf8)), .bytes(Array(key.utf8))])
            }
        }
    }

    /// How often a claim looks again for a row that vanished under it.
    private static let attempts = 3

    /// Runs database work, turning its failure into an ``IdempotencyStoreError``.
    private func sql<T>(_ body: () async throws(PostgresError) -> T) async throws(IdempotencyStoreError) -> T {
        do { return try await body() } catch { throw IdempotencyStoreError("idempotency store \(error)") }
    }
}
