import Dispatch
import EthereumPrimitives
import SignerKit
import SignerKitSupport

/// A ``HeldRequestStore`` in an SQLite database: requests held for approval survive restarts of the signer
/// service. It may share its file with the journal and the other stores (a table of its own).
///
/// One row per request: its id, status and creation time as columns, the whole request as JSON text. Every
/// change is one `BEGIN IMMEDIATE` transaction — read, decide, write — so two processes sharing the file
/// never lose an approval or both claim one signing. Calls run on a serial queue of their own, off the
/// cooperative pool.
public final class SQLiteHeldRequestStore: HeldRequestStore {
    /// The database file.
    public let path: String
    private let database: SQLiteDatabase
    private let queue = DispatchQueue(label: "SignerKit.SQLiteHeldRequestStore")

    static let schema = """
        CREATE TABLE IF NOT EXISTS held_requests (
            id TEXT PRIMARY KEY, status TEXT NOT NULL, created_at INTEGER NOT NULL, record TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS held_requests_status ON held_requests (status, created_at);
        """

    /// Opens (creating) the store in the database at `path`.
    ///
    /// - Throws: ``ApprovalError/store(_:)`` naming the file and SQLite's message.
    public init(path: String) throws(ApprovalError) {
        self.path = path
        do {
            database = try SQLiteDatabase(path: path)
            try database.execute(Self.schema)
        } catch {
            throw .store("\(error)")
        }
    }

    /// Stores `request` unless its id is taken; the stored one.
    public func insert(_ request: HeldRequest) async throws(ApprovalError) -> HeldRequest {
        try await run { () throws(ApprovalError) -> HeldRequest in
            try self.sql { () throws(SQLiteError) -> Result<HeldRequest, ApprovalError> in
                try self.database.transaction { () throws(SQLiteError) -> Result<HeldRequest, ApprovalError> in
                    if let existing = try self.read(request.id) { return existing }
                    try self.write(request)
                    return .success(request)
                }
            }.get()
        }
    }

    /// The request with `id`.
    public func request(id: String) async throws(ApprovalError) -> HeldRequest? {
        try await run { () throws(ApprovalError) -> HeldRequest? in
            try self.sql { () throws(SQLiteError) -> Result<HeldRequest, ApprovalError>? in try self.read(id) }?
                .get()
        }
    }

    /// Reads, decides and writes in one `BEGIN IMMEDIATE` transaction.
    public func update(id: String, _ decide: @escaping @Sendable (HeldRequest) -> HeldRequestUpdate)
        async throws(ApprovalError) -> HeldRequest
    {
        try await run { () throws(ApprovalError) -> HeldRequest in
            let (stored, refusal) = try self.sql {
                () throws(SQLiteError) -> Result<(HeldRequest, ApprovalError?), ApprovalError> in
                try self.database.transaction {
                    () throws(SQLiteError) -> Result<(HeldRequest, ApprovalError?), ApprovalError> in
                    guard let found = try self.read(id) else { return .failure(.unknownRequest(id)) }
                    guard case .success(let current) = found else { return found.map { ($0, nil) } }
                    let update = decide(current)
                    if let next = update.next { try self.write(next) }
                    return .success((update.next ?? current, update.refusal))
                }
            }.get()
            if let refusal { throw refusal }
            return stored
        }
    }

    /// The requests in `statuses`, oldest first.
    public func requests(in statuses: Set<HeldRequest.Status>, limit: Int) async throws(ApprovalError)
        -> [HeldRequest]
    {
        guard !statuses.isEmpty, limit > 0 else { return [] }
        return try await run { () throws(ApprovalError) -> [HeldRequest] in
            var texts: [String] = []
            try self.sql { () throws(SQLiteError) in
                let marks = Array(repeating: "?", count: statuses.count).joined(separator: ", ")
                try self.database.query(
                    "SELECT record FROM held_requests WHERE status IN (\(marks)) ORDER BY created_at, id LIMIT ?",
                    statuses.map { .text($0.rawValue) } + [.real(Double(limit))]
                ) { row in texts.append(row.text(0) ?? "") }
            }
            return try texts.map { (text) throws(ApprovalError) in try HeldRequest(storedText: text) }
        }
    }

    private func read(_ id: String) throws(SQLiteError) -> Result<HeldRequest, ApprovalError>? {
        var text: String?
        try database.query("SELECT record FROM held_requests WHERE id = ?", [.text(id)]) { row in
            text = row.text(0)
        }
        return text.map { text in Result { () throws(ApprovalError) in try HeldRequest(storedText: text) } }
    }

    private func write(_ request: HeldRequest) throws(SQLiteError) {
        try database.query(
            "INSERT OR REPLACE INTO held_requests (id, status, created_at, record) VALUES (?, ?, ?, ?)",
            [
                .text(request.id), .text(request.status.rawValue), .real(Double(request.createdAt)),
                .text(request.storedText),
            ])
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () throws(ApprovalError) -> T)
        async throws(ApprovalError) -> T
    {
        try await queue.perform { () throws(ApprovalError) -> T in try body() }
    }

    private func sql<T>(_ body: () throws(SQLiteError) -> T) throws(ApprovalError) -> T {
        do { return try body() } catch { throw .store("\(error)") }
    }
}
