import EthereumPrimitives
import SignerKit
import SignerKitService
import Testing

/// One ``IdempotencyStore`` contract, each test run against SQLite and PostgreSQL.
@Suite("Idempotency store contract (SQLite, PostgreSQL)")
struct IdempotencyContractTests {
    let body = Keccak256.hash(Array("request body".utf8))
    let otherBody = Keccak256.hash(Array("another request body".utf8))
    let lease = StoreBackend.holdingLease

    @Test(
        "claimed, then in progress, mismatch for another body, answered once complete, per client",
        arguments: StoreBackend.allCases)
    func lifecycle(backend: StoreBackend) async throws {
        let open = try await backend.idempotencyStores()
        let store = try await open()
        let second = try await open()
        #expect(try await store.claim(client: "alice", key: "k1", requestHash: body, lease: lease) == .claimed)
        #expect(try await second.claim(client: "alice", key: "k1", requestHash: body, lease: lease) == .inProgress)
        #expect(try await second.claim(client: "alice", key: "k1", requestHash: otherBody, lease: lease) == .mismatch)
        #expect(try await second.claim(client: "bob", key: "k1", requestHash: otherBody, lease: lease) == .claimed)
        let answer = Array(#"{"jsonrpc":"2.0","id":1,"result":"0x01"}"#.utf8)
        try await store.complete(client: "alice", key: "k1", answer: answer)
        #expect(
            try await second.claim(client: "alice", key: "k1", requestHash: body, lease: lease) == .answered(answer))
        #expect(try await second.claim(client: "alice", key: "k1", requestHash: otherBody, lease: lease) == .mismatch)
        // Released after completion: the answer stays. Completing twice is refused.
        try await second.release(client: "alice", key: "k1")
        #expect(try await store.claim(client: "alice", key: "k1", requestHash: body, lease: lease) == .answered(answer))
        await #expect(throws: IdempotencyStoreError.self) {
            try await store.complete(client: "alice", key: "k1", answer: [1])
        }
        // An empty answer is an answer.
        #expect(try await store.claim(client: "alice", key: "k2", requestHash: body, lease: lease) == .claimed)
        try await store.complete(client: "alice", key: "k2", answer: [])
        #expect(try await second.claim(client: "alice", key: "k2", requestHash: body, lease: lease) == .answered([]))
    }

    @Test(
        "a released key can be claimed again at once with its body, never with another; completing an unclaimed key fails",
        arguments: StoreBackend.allCases)
    func release(backend: StoreBackend) async throws {
        let open = try await backend.idempotencyStores()
        let store = try await open()
        let second = try await open()
        #expect(try await store.claim(client: "alice", key: "k", requestHash: body, lease: lease) == .claimed)
        try await store.release(client: "alice", key: "k")
        // The failed first attempt may have paid: another body under its key would be told the first's outcome.
        #expect(try await second.claim(client: "alice", key: "k", requestHash: otherBody, lease: lease) == .mismatch)
        #expect(try await second.claim(client: "alice", key: "k", requestHash: body, lease: lease) == .claimed)
        try await second.release(client: "alice", key: "k")
        await #expect(throws: IdempotencyStoreError.self) {
            try await store.complete(client: "alice", key: "k", answer: [1, 2])
        }
        #expect(try await store.claim(client: "alice", key: "k", requestHash: body, lease: lease) == .claimed)
        try await store.complete(client: "alice", key: "k", answer: [3])
        #expect(try await second.claim(client: "alice", key: "k", requestHash: body, lease: lease) == .answered([3]))
    }

    @Test("a claim whose lease ends can be claimed again", arguments: StoreBackend.allCases)
    func lapse(backend: StoreBackend) async throws {
        let open = try await backend.idempotencyStores()
        let store = try await open()
        let second = try await open()
        #expect(try await store.claim(client: "alice", key: "k", requestHash: body, lease: .seconds(1)) == .claimed)
        var last: IdempotencyClaim?
        let lapsed = try await eventually {
            last = try await second.claim(client: "alice", key: "k", requestHash: body, lease: lease)
            return last != .inProgress
        }
        #expect(lapsed, "the 1 s claim never lapsed")
        #expect(last == .claimed)
        #expect(try await second.claim(client: "alice", key: "k", requestHash: otherBody, lease: lease) == .mismatch)
        #expect(try await store.claim(client: "alice", key: "k", requestHash: body, lease: lease) == .inProgress)
    }

    @Test("keys are exact: NUL bytes, case and Unicode keep keys apart", arguments: StoreBackend.allCases)
    func exactKeys(backend: StoreBackend) async throws {
        let store = try await backend.idempotencyStores()()
        for key in ["a\u{0}b", "a\u{0}c", "A\u{0}b", "é", "e\u{301}", "a"] {
            #expect(try await store.claim(client: "alice", key: key, requestHash: body, lease: lease) == .claimed)
        }
    }

    @Test("many handles claiming one key at once: exactly one gets it", arguments: StoreBackend.allCases)
    func concurrentClaims(backend: StoreBackend) async throws {
        let open = try await backend.idempotencyStores()
        let stores = [try await open(), try await open()]
        let claims = try await withThrowingTaskGroup(of: IdempotencyClaim.self) { group in
            for index in 0..<20 {
                let store = stores[index % 2]
                group.addTask { try await store.claim(client: "alice", key: "race", requestHash: body, lease: lease) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(claims.filter { $0 == .claimed }.count == 1)
        #expect(claims.filter { $0 == .inProgress }.count == 19)
    }
}
