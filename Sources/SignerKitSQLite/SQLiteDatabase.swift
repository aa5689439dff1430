import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite connection (serialised by its owner): statements with bound parameters, transactions, errors
/// that name the database and SQLite's message.
final class SQLiteDatabase: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The database file.
    let path: String

    /// Opens (creating it with mode 0600; SQLite gives its -wal and -shm files the same mode) `path` with WAL,
    /// a full fsync on commit and a 5 s busy wait.
    ///
    /// An existing file is never opened outside SQLite: POSIX releases every lock a process holds on a file
    /// when *any* of its descriptors for that file is closed, so an `open()`/`close()` beside a live
    /// connection would drop that connection's locks, and the next outside client (an operator's `sqlite3`,
    /// a backup) would checkpoint and delete the WAL the service is still writing to.
    init(path: String) throws(SQLiteError) {
        // Only a file this call creates (O_EXCL) is opened and closed here: no connection can hold locks on it.
        let created = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if created >= 0 {
            close(created)
        } else if errno != EEXIST {
            throw SQLiteError(path: path, message: String(cString: strerror(errno)))
        }
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close(db) }
            throw SQLiteError(path: path, message: message)
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, 5000)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
    }

    deinit { sqlite3_close(handle) }

    /// Runs statements without results.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw SQLiteError(path: path, message: text)
        }
    }

    /// Runs `sql` with `parameters` bound in order; calls `row` for each result row.
    func query(_ sql: String, _ parameters: [SQLiteValue], row: (SQLiteRow) -> Void = { _ in }) throws(SQLiteError) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteError(path: path, message: lastError)
        }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .text(let text): status = sqlite3_bind_text(statement, index, text, -1, sk_sqlite_transient())
            // A NULL pointer would bind NULL, not an empty blob.
            case .blob(let bytes) where bytes.isEmpty: status = sqlite3_bind_zeroblob(statement, index, 0)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), sk_sqlite_transient())
                }
            case .real(let number): status = sqlite3_bind_double(statement, index, number)
            case .null: status = sqlite3_bind_null(statement, index)
            }
            guard status == SQLITE_OK else { throw SQLiteError(path: path, message: lastError) }
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: row(SQLiteRow(statement: statement))
            case SQLITE_DONE: return
            default: throw SQLiteError(path: path, message: lastError)
            }
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// How many rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// SQL for SQLite's clock as Unix seconds with a fraction, what leases are measured in: the processes that
    /// share a database file share its host, so they read one clock.
    static let now = "((julianday('now') - 2440587.5) * 86400.0)"

    private var lastError: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A value bound to a statement parameter.
enum SQLiteValue {
    case text(String)
    case blob([UInt8])
    case real(Double)
    case null
}

/// One result row (valid during the `row` callback only).
struct SQLiteRow {
    let statement: OpaquePointer

    /// Column `index` as text (`nil` for NULL).
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(statement, index) else { return nil }
        return String(cString: bytes)
    }

    /// Column `index` as an integer (0 for NULL).
    func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }

    /// Column `index` as bytes (`nil` for NULL).
    func blob(_ index: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let base = sqlite3_column_blob(statement, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }
}

/// A failed SQLite call: the database file and SQLite's message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    let path: String
    let message: String

    var description: String { "\(path): \(message)" }
}
