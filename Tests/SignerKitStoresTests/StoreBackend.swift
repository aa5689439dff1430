import Foundation
import Secp256k1
import SignerKit
import SignerKitPostgres
import SignerKitSQLite
import SignerKitService
import SignerKitTestSupport
import Testing

/// The storage a store contract runs against: each test gets fresh storage (a new SQLite file, a new
/// PostgreSQL database on the shared server) and opens as many handles on it as it needs — separate
/// `SQLiteDatabase` connections, separate PostgreSQL connection pools — as separate processes would.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A lease no test outlives, for claims and reservations that must hold while a test runs (their end is
    /// tested with short leases): measured by the store's clock in real time, a shorter one could lapse on a
    /// loaded machine before the test looks. Not a wait: nothing waits for it to end.
    static let holdingLease = Duration.seconds(24 * 60 * 60)

    /// Opens journals on one fresh storage; each call is a new handle.
    func journals() async throws -> @Sendable () async throws -> any TransactionJournal {
        switch self {
        case .sqlite:
            let path = try Self.temporaryFile()
            return { try SQLiteTransactionJournal(path: path) }
        case .postgres:
            let configuration = try await Self.freshDatabase()
            return { try await PostgresTransactionJournal(configuration: configuration) }
        }
    }

    /// Opens idempotency stores on one fresh storage; each call is a new handle.
    func idempotencyStores() async throws -> @Sendable () async throws -> any IdempotencyStore {
        switch self {
        case .sqlite:
            let path = try Self.temporaryFile()
            return { try SQLiteIdempotencyStore(path: path) }
        case .postgres:
            let configuration = try await Self.freshDatabase()
            return { try await PostgresIdempotencyStore(configuration: configuration) }
        }
    }

    /// Opens usage counter stores on one fresh storage; each call is a new handle.
    func usageStores() async throws -> @Sendable () async throws -> any UsageCounterStore {
        switch self {
        case .sqlite:
            let path = try Self.temporaryFile()
            return { try SQLiteUsageCounterStore(path: path) }
        case .postgres:
            let configuration = try await Self.freshDatabase()
            return { try await PostgresUsageCounterStore(configuration: configuration) }
        }
    }

    /// Opens held-request stores on one fresh storage; each call is a new handle.
    func heldRequestStores() async throws -> @Sendable () async throws -> any HeldRequestStore {
        switch self {
        case .sqlite:
            let path = try Self.temporaryFile()
            return { try SQLiteHeldRequestStore(path: path) }
        case .postgres:
            let configuration = try await Self.freshDatabase()
            return { try await PostgresHeldRequestStore(configuration: configuration) }
        }
    }

    /// A new database on the shared server.
    static func freshDatabase() async throws -> PostgresConfiguration {
        let server = try await PostgresServer.shared.value
        return server.configuration(database: try await server.createDatabase())
    }

    /// A database file in a new temporary directory (removed at exit).
    static func temporaryFile() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-stores-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        TemporaryPaths.removeAtExit(directory.path)
        return directory.appendingPathComponent("stores.sqlite").path
    }
}

extension PostgresServer {
    /// A configuration for `database` on this server as its superuser (statements bounded by `timeout`).
    func configuration(database: String, password: String? = nil, timeout: Duration = .seconds(20))
        -> PostgresConfiguration
    {
        var bytes = Array((password ?? self.password).utf8)
        return PostgresConfiguration(
            host: host, port: port, database: database, user: user, password: SecureBytes(wiping: &bytes),
            sslMode: "disable", timeout: timeout)
    }
}

/// Polls `condition` (``RealTime``) until it holds (then true) or `limit` has passed (then false): for what
/// happens after a lease, whose end the tests wait for without asserting how soon it comes. The bound only
/// ends a hang.
func eventually(within limit: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    try await RealTime.poll(within: limit, until: condition)
}
