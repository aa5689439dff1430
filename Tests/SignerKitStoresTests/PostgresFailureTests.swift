import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitService
import SignerKitTestSupport
import Testing

@testable import SignerKitPostgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the PostgreSQL stores do when the server refuses, goes away or drops connections, and when several
/// instances create the schema at once.
@Suite("PostgreSQL stores under failure")
struct PostgresFailureTests {
    let account: Address
    let base = ChainID(eip155: 1)

    init() throws { account = try Address("0x2d5fd9e4a3a225a78329a64d022581275b4ca416") }

    /// Runs a blocking libpq call on a thread of its own, never on Swift's cooperative pool.
    static func onThread(_ body: @escaping @Sendable () throws(PostgresError) -> Void) async throws {
        try await ChildProcess.onThread { () -> Result<Void, PostgresError> in
            Result { () throws(PostgresError) in try body() }
        }.get()
    }

    func entry(_ nonce: UInt64) -> JournalEntry {
        let raw = Array("raw transaction \(nonce)".utf8)
        return JournalEntry(
            identity: ActionIdentity(idempotencyKey: "f\(nonce)", index: 0), chain: base, account: account,
            nonce: UInt256(nonce), hash: Keccak256.hash(raw), rawTransaction: raw)
    }

    @Test("a wrong password is a typed error naming the server, never the password")
    func wrongPassword() async throws {
        let server = try await PostgresServer.shared.value
        let wrong = "wrong-\(UUID().uuidString)"
        let configuration = server.configuration(database: "postgres", password: wrong)
        #expect(!configuration.description.contains(wrong) && !configuration.description.contains(server.password))
        #expect(configuration.description == "postgresql://signerkit@127.0.0.1:\(server.port)/postgres")
        do {
            _ = try await PostgresTransactionJournal(configuration: configuration)
            Issue.record("a wrong password connected")
        } catch {
            guard case .io(let message) = error else {
                Issue.record("not an io error: \(error)")
                return
            }
            #expect(message.contains("127.0.0.1:\(server.port)/postgres"))
            #expect(message.contains("password authentication failed"))
            #expect(!message.contains(wrong) && !message.contains(server.password))
        }
        do {
            _ = try await PostgresIdempotencyStore(configuration: configuration)
            Issue.record("a wrong password connected")
        } catch {
            #expect(error.message.contains("password authentication failed"))
            #expect(!error.message.contains(wrong))
        }
        await #expect(throws: AuditTrailError.self) {
            _ = try await PostgresAuditTrail(configuration: configuration)
        }
    }

    @Test("connections the server dropped are replaced: the next call works")
    func droppedConnectionsAreReplaced() async throws {
        let server = try await PostgresServer.shared.value
        let database = try await server.createDatabase()
        let configuration = server.configuration(database: database)
        let journal = try await PostgresTransactionJournal(configuration: configuration)
        let store = try await PostgresIdempotencyStore(configuration: configuration)
        try await journal.record(entry(1))
        let body = Keccak256.hash([1])
        #expect(
            try await store.claim(client: "a", key: "k", requestHash: body, lease: StoreBackend.holdingLease)
                == .claimed)
        let terminated = try await server.psql(
            """
            SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = '\(database)' AND application_name = 'signerkit') AS t
            """)
        #expect(terminated == "3\n", "one connection each, and the session of the claims' owner")
        // pg_terminate_backend only signals: wait until both backends are gone, so the calls below meet
        // closed connections rather than dying ones.
        let gone = try await eventually {
            try await server.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND application_name = 'signerkit'"
            ) == "0\n"
        }
        try #require(gone)
        #expect(try await journal.highestNonce(chain: base, account: account) == 1)
        try await journal.record(entry(2))
        // The store's own claim, made under the session it lost, is not taken over by itself before a recovery
        // sweep has run.
        #expect(
            try await store.claim(client: "a", key: "k", requestHash: body, lease: StoreBackend.holdingLease)
                == .inProgress)
    }

    @Test("a stopped server gives errors, not hangs; the audit trail reports failure")
    func stoppedServer() async throws {
        let server = try await PostgresServer.start()
        let configuration = server.configuration(database: "postgres", timeout: .seconds(5))
        let journal = try await PostgresTransactionJournal(configuration: configuration)
        let store = try await PostgresIdempotencyStore(configuration: configuration)
        let trail = try await PostgresAuditTrail(configuration: configuration)
        try await journal.record(entry(1))
        #expect(await trail.append([CallRecord(client: "a", method: "eth_chainId")], requestID: "r", at: Date()))
        await ChildProcess.onThread { server.stop() }

        await #expect(throws: JournalError.self) { try await journal.record(entry(2)) }
        await #expect(throws: JournalError.self) {
            try await journal.reserveNonce(chain: base, account: account, atLeast: 0, lease: .seconds(60))
        }
        await #expect(throws: IdempotencyStoreError.self) {
            try await store.claim(client: "a", key: "k", requestHash: Keccak256.hash([1]), lease: .seconds(60))
        }
        #expect(await !trail.append([CallRecord(client: "a", method: "eth_chainId")], requestID: "r", at: Date()))
        do {
            _ = try await PostgresTransactionJournal(configuration: configuration)
            Issue.record("connected to a stopped server")
        } catch {
            #expect(error.description.contains("127.0.0.1:\(server.port)/postgres"))
        }
    }

    /// The lock is held until the test lets it go: the holder's transaction waits for an advisory lock the test
    /// holds on a connection of its own, so no sleep decides how long (a loaded machine only makes it longer).
    @Test("a lock held past the timeout is an error, not a wait")
    func lockTimeout() async throws {
        let server = try await PostgresServer.shared.value
        let database = try await server.createDatabase()
        let journal = try await PostgresTransactionJournal(
            configuration: server.configuration(database: database, timeout: .seconds(1)))
        try await journal.record(entry(1))
        let gate = PostgresConnection(configuration: server.configuration(database: database), label: "gate")
        try await Self.onThread { () throws(PostgresError) in _ = try gate.execute("SELECT pg_advisory_lock(4242)") }
        let holder = Task {
            try await server.psql(
                "BEGIN; LOCK TABLE signerkit_lanes IN ACCESS EXCLUSIVE MODE; SELECT pg_advisory_lock(4242); COMMIT",
                database: database)
        }
        let held = try await eventually {
            try await server.psql(
                """
                SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                WHERE c.relname = 'signerkit_lanes' AND l.mode = 'AccessExclusiveLock' AND l.granted
                """, database: database) == "1\n"
        }
        try #require(held)
        do {
            _ = try await journal.reserveNonce(chain: base, account: account, atLeast: 0, lease: .seconds(60))
            Issue.record("reserved a nonce while the lane table was locked")
        } catch {
            #expect(error.description.contains("canceling statement due to"), "\(error)")
        }
        try await Self.onThread { () throws(PostgresError) in _ = try gate.execute("SELECT pg_advisory_unlock(4242)") }
        _ = try await holder.value
        #expect(try await journal.reserveNonce(chain: base, account: account, atLeast: 0, lease: .seconds(60)) == 0)
    }

    @Test("a backend that stops answering is given up after the timeout; the call goes on on a new connection")
    func unresponsiveBackend() async throws {
        let server = try await PostgresServer.shared.value
        let database = try await server.createDatabase()
        var configuration = server.configuration(database: database, timeout: .seconds(1))
        configuration.connectTimeout = .seconds(2)
        let journal = try await PostgresTransactionJournal(configuration: configuration)
        try await journal.record(entry(1))
        let backends =
            "SELECT pid FROM pg_stat_activity WHERE datname = '\(database)' AND application_name = 'signerkit'"
        let listed = try await server.psql(backends)
        let pid = try #require(Int32(listed.trimmingCharacters(in: .whitespacesAndNewlines)))
        try #require(kill(pid, SIGSTOP) == 0)
        let answer: UInt256?
        do {
            defer { kill(pid, SIGCONT) }
            answer = try await journal.highestNonce(chain: base, account: account)
        }
        #expect(answer == 1)
        // The stopped backend's connection was closed: once resumed, it sees that and exits.
        let abandoned = try await eventually {
            try await !server.psql(backends).split(separator: "\n").contains(Substring(String(pid)))
        }
        #expect(abandoned)
    }

    @Test("instances starting at once against an empty database all create or find the schema")
    func concurrentSchemaCreation() async throws {
        let server = try await PostgresServer.shared.value
        let configuration = server.configuration(database: try await server.createDatabase())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { _ = try await PostgresTransactionJournal(configuration: configuration) }
                group.addTask { _ = try await PostgresIdempotencyStore(configuration: configuration) }
                group.addTask { _ = try await PostgresAuditTrail(configuration: configuration) }
            }
            try await group.waitForAll()
        }
        let tables = try await server.psql(
            "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE 'signerkit%'",
            database: configuration.database)
        #expect(
            tables
                == "signerkit_audit,signerkit_broadcasts,signerkit_call_batches,signerkit_idempotency,signerkit_lanes,"
                + "signerkit_outcomes,signerkit_reservations\n")
    }
}
