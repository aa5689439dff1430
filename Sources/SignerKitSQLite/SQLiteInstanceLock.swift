#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One service instance per SQLite store: an exclusive `flock` on a file beside the database
/// (`<database>.instance`), held for as long as this value lives. A second `signerkit serve` on the same
/// store is refused at start instead of sharing it — and a start-up that holds the lock knows every open
/// idempotency claim in the store is one a dead instance left (``SQLiteIdempotencyStore/releaseOpenClaims()``).
///
/// The lock is on a file of its own, never on the database: closing any descriptor of the database file would
/// drop the POSIX locks SQLite holds on it.
public final class SQLiteInstanceLock: Sendable {
    private let descriptor: Int32
    /// The lock file.
    public let path: String

    /// Takes the lock of the store at `databasePath`.
    ///
    /// - Throws: ``SQLiteInstanceLockError`` when another process holds it, or the lock file cannot be opened.
    public init(databasePath: String) throws(SQLiteInstanceLockError) {
        path = databasePath + ".instance"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let held = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(fd)
            throw held ? .heldByAnotherInstance(path: path) : .cannotOpen(path: path, reason: reason)
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}

/// Why the instance lock of an SQLite store could not be taken.
public enum SQLiteInstanceLockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process (a running `signerkit serve`) holds it.
    case heldByAnotherInstance(path: String)
    /// The lock file could not be opened or locked.
    case cannotOpen(path: String, reason: String)

    /// One line naming the lock file.
    public var description: String {
        switch self {
        case .heldByAnotherInstance(let path):
            "another instance serves this SQLite store (it holds \(path)); one store serves one instance "
                + "(use PostgreSQL for several)"
        case .cannotOpen(let path, let reason): "cannot lock \(path): \(reason)"
        }
    }
}
