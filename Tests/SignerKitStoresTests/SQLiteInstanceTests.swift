import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitSQLite
import Testing

/// One instance per SQLite store, and the claims a killed earlier run left.
@Suite("SQLite store: one instance, the claims of earlier runs")
struct SQLiteInstanceTests {
    @Test("the instance lock is held by one holder at a time, and free again once it is gone")
    func instanceLock() throws {
        let path = try StoreBackend.temporaryFile()
        var first: SQLiteInstanceLock? = try SQLiteInstanceLock(databasePath: path)
        #expect(throws: SQLiteInstanceLockError.heldByAnotherInstance(path: path + ".instance")) {
            try SQLiteInstanceLock(databasePath: path)
        }
        #expect(first?.path == path + ".instance")
        first = nil
        _ = try SQLiteInstanceLock(databasePath: path)
    }

    @Test("releaseOpenClaims ends every open claim and keeps answers and bindings")
    func releaseOpenClaims() async throws {
        let path = try StoreBackend.temporaryFile()
        let store = try SQLiteIdempotencyStore(path: path)
        let hash = Keccak256.hash(Array("body".utf8))
        let lease = Duration.seconds(3600)
        #expect(try await store.claim(client: "c", key: "open-1", requestHash: hash, lease: lease) == .claimed)
        #expect(try await store.claim(client: "c", key: "open-2", requestHash: hash, lease: lease) == .claimed)
        #expect(try await store.claim(client: "c", key: "done", requestHash: hash, lease: lease) == .claimed)
        try await store.complete(client: "c", key: "done", answer: Array("answer".utf8))
        #expect(try await store.claim(client: "c", key: "open-1", requestHash: hash, lease: lease) == .inProgress)

        #expect(try await store.releaseOpenClaims() == 2)
        #expect(try await store.claim(client: "c", key: "open-1", requestHash: hash, lease: lease) == .claimed)
        #expect(
            try await store.claim(client: "c", key: "done", requestHash: hash, lease: lease)
                == .answered(Array("answer".utf8)))
        let other = Keccak256.hash(Array("other".utf8))
        #expect(try await store.claim(client: "c", key: "open-2", requestHash: other, lease: lease) == .mismatch)
        #expect(try await store.releaseOpenClaims() == 1, "only the claim taken again since")
    }
}
