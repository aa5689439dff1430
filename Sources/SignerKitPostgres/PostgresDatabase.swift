import SignerKitSupport
import Synchronization

/// A small pool of libpq connections to one database: each call borrows a free connection (waiting, in
/// order, while all are busy) and runs on that connection's serial queue, off the cooperative pool.
///
/// Waits are bounded: every statement is (see ``PostgresConnection``), so a borrowed connection always comes
/// back.
final class PostgresDatabase: Sendable {
    /// Where it connects.
    let configuration: PostgresConfiguration
    private let connections: [PostgresConnection]
    private let pool: Mutex<Pool>

    /// Free connections and the callers waiting for one.
    private struct Pool {
        var idle: [Int]
        var waiting: [CheckedContinuation<Int, Never>] = []
    }

    /// A pool of `configuration.poolSize` connections (at least one), each opened on first use.
    init(configuration: PostgresConfiguration) {
        self.configuration = configuration
        let size = max(configuration.poolSize, 1)
        connections = (0..<size).map { index in
            PostgresConnection(configuration: configuration, label: "SignerKit.PostgresDatabase.\(index)")
        }
        pool = Mutex(Pool(idle: Array((0..<size).reversed())))
    }

    /// Runs `body` in one transaction on a borrowed connection.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T)
        async throws(PostgresError) -> T
    {
        let index = await borrow()
        defer { giveBack(index) }
        let connection = connections[index]
        return try await connection.queue.perform { () throws(PostgresError) -> T in
            try connection.transaction(body)
        }
    }

    /// Creates `statements` (each `CREATE … IF NOT EXISTS`) in one transaction under an advisory lock shared
    /// by every SignerKit store, so instances starting at once against an empty database do not collide.
    func createSchema(_ statements: [String]) async throws(PostgresError) {
        try await transaction { connection throws(PostgresError) in
            try connection.execute("SELECT pg_advisory_xact_lock(\(Self.schemaLock))")
            for statement in statements { try connection.execute(statement) }
        }
    }

    /// The advisory lock key of schema creation (`signerki` in ASCII).
    private static let schemaLock: Int64 = 0x7369_676e_6572_6b69

    /// A free connection's index, once there is one.
    private func borrow() async -> Int {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let free = pool.withLock { pool -> Int? in
                if let index = pool.idle.popLast() { return index }
                pool.waiting.append(continuation)
                return nil
            }
            if let free { continuation.resume(returning: free) }
        }
    }

    /// Hands the connection to the longest-waiting caller, or marks it free.
    private func giveBack(_ index: Int) {
        let next = pool.withLock { pool -> CheckedContinuation<Int, Never>? in
            guard !pool.waiting.isEmpty else {
                pool.idle.append(index)
                return nil
            }
            return pool.waiting.removeFirst()
        }
        next?.resume(returning: index)
    }
}
