import EthereumPrimitives
import SignerKit
import SignerKitSupport

/// A ``HeldRequestStore`` in a PostgreSQL database, so every signer service instance sees the same held
/// requests: an approval may reach any instance, and any instance may sign (one at a time).
///
/// One row of `signerkit_held_requests` per request: its id, status and creation time as columns, the whole
/// request as JSON text. A change locks the row (`FOR UPDATE`), decides and writes in one transaction: two
/// approvals racing on two instances are both counted, and one instance at a time claims the signing.
public final class PostgresHeldRequestStore: HeldRequestStore {
    /// The database.
    public let configuration: PostgresConfiguration
    private let database: PostgresDatabase

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS signerkit_held_requests (
            id text PRIMARY KEY, status text NOT NULL, created_at bigint NOT NULL, record text NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS signerkit_held_requests_status ON signerkit_held_requests (status, created_at)",
    ]

    /// Connects to the database of `configuration` and creates the store's table when it is missing.
    ///
    /// - Throws: ``ApprovalError/store(_:)`` naming the server and its message (never the password).
    public init(configuration: PostgresConfiguration) async throws(ApprovalError) {
        self.configuration = configuration
        database = PostgresDatabase(configuration: configuration)
        try await sql { () async throws(PostgresError) in try await database.createSchema(Self.schema) }
    }

    /// Stores `request` unless its id is taken; the stored one.
    public func insert(_ request: HeldRequest) async throws(ApprovalError) -> HeldRequest {
        try await sql { () async throws(PostgresError) -> Result<HeldRequest, ApprovalError> in
            try await database.transaction { connection throws(PostgresError) -> Result<HeldRequest, ApprovalError> in
                try connection.execute(
                    """
                    INSERT INTO signerkit_held_requests (id, status, created_at, record)
                    VALUES ($1, $2, $3::bigint, $4) ON CONFLICT (id) DO NOTHING
                    """, Self.columns(of: request))
                return try Self.read(request.id, on: connection, locking: false)
                    ?? .failure(.unknownRequest(request.id))
            }
        }.get()
    }

    /// The request with `id`.
    public func request(id: String) async throws(ApprovalError) -> HeldRequest? {
        try await sql { () async throws(PostgresError) -> Result<HeldRequest, ApprovalError>? in
            try await database.transaction { connection throws(PostgresError) in
                try Self.read(id, on: connection, locking: false)
            }
        }?.get()
    }

    /// Locks the row, decides and writes, in one transaction.
    public func update(id: String, _ decide: @escaping @Sendable (HeldRequest) -> HeldRequestUpdate)
        async throws(ApprovalError) -> HeldRequest
    {
        let (stored, refusal) = try await sql {
            () async throws(PostgresError) -> Result<(HeldRequest, ApprovalError?), ApprovalError> in
            try await database.transaction {
                connection throws(PostgresError) -> Result<(HeldRequest, ApprovalError?), ApprovalError> in
                guard let found = try Self.read(id, on: connection, locking: true) else {
                    return .failure(.unknownRequest(id))
                }
                guard case .success(let current) = found else { return found.map { ($0, nil) } }
                let update = decide(current)
                if let next = update.next {
                    try connection.execute(
                        "UPDATE signerkit_held_requests SET status = $2, created_at = $3::bigint, record = $4 "
                            + "WHERE id = $1", Self.columns(of: next))
                }
                return .success((update.next ?? current, update.refusal))
            }
        }.get()
        if let refusal { throw refusal }
        return stored
    }

    /// The requests in `statuses`, oldest first.
    public func requests(in statuses: Set<HeldRequest.Status>, limit: Int) async throws(ApprovalError)
        -> [HeldRequest]
    {
        guard !statuses.isEmpty, limit > 0 else { return [] }
        let texts = try await sql { () async throws(PostgresError) -> [String] in
            try await database.transaction { connection throws(PostgresError) -> [String] in
                try connection.query(
                    """
                    SELECT record FROM signerkit_held_requests WHERE status = ANY(string_to_array($1, ','))
                    ORDER BY created_at, id LIMIT $2::bigint
                    """, [.text(statuses.map(\.rawValue).sorted().joined(separator: ",")), .text(String(limit))]
                ).map { $0.text(0) ?? "" }
            }
        }
        return try texts.map { (text) throws(ApprovalError) in try HeldRequest(storedText: text) }
    }

    private static func read(_ id: String, on connection: PostgresConnection, locking: Bool)
        throws(PostgresError) -> Result<HeldRequest, ApprovalError>?
    {
        let rows = try connection.query(
            "SELECT record FROM signerkit_held_requests WHERE id = $1" + (locking ? " FOR UPDATE" : ""), [.text(id)])
        guard let text = rows.first?.text(0) else { return nil }
        return Result { () throws(ApprovalError) in try HeldRequest(storedText: text) }
    }

    private static func columns(of request: HeldRequest) -> [PostgresValue] {
        [
            .text(request.id), .text(request.status.rawValue), .text(String(request.createdAt)),
            .text(request.storedText),
        ]
    }

    private func sql<T: Sendable>(_ body: () async throws(PostgresError) -> T) async throws(ApprovalError) -> T {
        do { return try await body() } catch { throw .store("\(error)") }
    }
}
