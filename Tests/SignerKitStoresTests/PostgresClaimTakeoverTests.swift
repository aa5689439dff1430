import EthereumPrimitives
import SignerKit
import SignerKitTestSupport
import Testing

@testable import SignerKitPostgres

/// Claims of an instance that is gone — its owner session ended, as when the process is killed — are taken
/// over by another instance once a journal recovery sweep that began after it was gone has completed; never
/// while the owner lives, never on an incomplete sweep or one that began before.
@Suite("PostgreSQL: claims of stopped instances")
struct PostgresClaimTakeoverTests {
    let body = Keccak256.hash(Array("order-1".utf8))

    /// Three handles (three instances) on a fresh database.
    func instances() async throws -> (PostgresServer, String, [PostgresIdempotencyStore]) {
        let server = try await PostgresServer.shared.value
        let database = try await server.createDatabase()
        let configuration = server.configuration(database: database)
        return (
            server, database,
            [
                try await PostgresIdempotencyStore(configuration: configuration),
                try await PostgresIdempotencyStore(configuration: configuration),
                try await PostgresIdempotencyStore(configuration: configuration),
            ]
        )
    }

    func claim(_ store: PostgresIdempotencyStore, _ key: String = "order-1") async throws -> IdempotencyClaim {
        try await store.claim(client: "shop", key: key, requestHash: body, lease: StoreBackend.holdingLease)
    }

    /// Ends the session of the owner of `key`'s claim (as the death of its process does), and waits until
    /// the server dropped its lock.
    func endOwnerSession(of key: String, server: PostgresServer, database: String) async throws {
        let owners = """
            FROM pg_locks l JOIN signerkit_idempotency i ON l.objid = i.owner::oid
            WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid = \(PostgresClaimOwner.lockClass)
            AND i.key = convert_to('\(key)', 'UTF8')
            """
        let ended = try await server.psql(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(l.pid) \(owners)) AS t", database: database)
        #expect(ended == "1\n", "one owner session")
        let gone = try await eventually {
            try await server.psql("SELECT count(*) \(owners)", database: database) == "0\n"
        }
        try #require(gone)
    }

    @Test("taken over once a complete sweep began after the owner was gone; the first owner can no longer finish it")
    func takenOverAfterRecovery() async throws {
        let (server, database, stores) = try await instances()
        let (first, second, third) = (stores[0], stores[1], stores[2])
        #expect(try await claim(first) == .claimed)
        // The owner lives: a complete sweep hands nothing over.
        try await second.recoveryStarting()
        #expect(second.recoveryFinished(complete: true) == 0)
        #expect(try await claim(second) == .inProgress)

        try await endOwnerSession(of: "order-1", server: server, database: database)
        #expect(try await claim(second) == .inProgress, "no sweep has run since")
        try await second.recoveryStarting()
        #expect(second.recoveryFinished(complete: false) == 0)
        #expect(try await claim(second) == .inProgress, "that sweep left work undone")
        try await second.recoveryStarting()
        #expect(second.recoveryFinished(complete: true) == 1)
        #expect(try await claim(second) == .claimed)
        #expect(try await claim(third) == .inProgress, "the new owner lives")

        // The first instance goes on (a new session of its own), but the claim is no longer its own.
        #expect(try await claim(first, "order-2") == .claimed)
        await #expect(throws: IdempotencyStoreError.self) {
            try await first.complete(client: "shop", key: "order-1", answer: Array("first".utf8))
        }
        try await first.release(client: "shop", key: "order-1")
        #expect(try await claim(third) == .inProgress)
        try await second.complete(client: "shop", key: "order-1", answer: Array("second".utf8))
        #expect(try await claim(third) == .answered(Array("second".utf8)))
    }

    @Test("a sweep that began while the owner lived hands nothing over, even when it ends after")
    func sweepBegunBeforeTheOwnerWasGone() async throws {
        let (server, database, stores) = try await instances()
        let (first, second) = (stores[0], stores[1])
        #expect(try await claim(first) == .claimed)
        try await second.recoveryStarting()
        try await endOwnerSession(of: "order-1", server: server, database: database)
        #expect(second.recoveryFinished(complete: true) == 0)
        #expect(try await claim(second) == .inProgress)
    }
}
