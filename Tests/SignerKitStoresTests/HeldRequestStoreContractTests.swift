import EthereumPrimitives
import SignerKit
import Testing

/// The held-request store contract on SQLite and PostgreSQL, each handle standing for one signer-service
/// instance: a request is stored once under its id, approvals racing on two handles are all counted, one
/// handle at a time claims the signing, and listings are by status, oldest first.
@Suite("Held-request stores (SQLite, PostgreSQL)")
struct HeldRequestStoreContractTests {
    static let base = ChainID(eip155: 8453)

    /// A request of one `personal_sign` needing `required` approvals of `treasury`, held at `createdAt`.
    static func request(id: String, required: Int, createdAt: Int64 = 1_800_000_000) -> HeldRequest {
        HeldRequest(
            id: id, initiator: "payouts", method: "personal_sign",
            actions: [
                WalletRpcAction(
                    chainId: base, method: .personalSign,
                    params: #"["0x68656c6c6f","0x00000000000000000000000000000000000005a0"]"#)
            ],
            previews: .array([.object(JSONObject(["kind": .string("message")]))]),
            digest: Keccak256.hash(Array(id.utf8)),
            requirements: [.init(rule: "all", group: "treasury", required: required, lifetimeSeconds: 600)],
            journalKey: "held:" + id, createdAt: createdAt)
    }

    @Test("stored once under its id, read back whole", arguments: StoreBackend.allCases)
    func storedOnce(backend: StoreBackend) async throws {
        let open = try await backend.heldRequestStores()
        let (first, second) = (try await open(), try await open())
        let request = Self.request(id: "hr_once", required: 2)
        #expect(try await first.insert(request) == request)
        var other = Self.request(id: "hr_once", required: 3, createdAt: 1_800_000_100)
        other.status = .approved
        #expect(try await second.insert(other) == request)
        #expect(try await second.request(id: "hr_once") == request)
        #expect(try await second.request(id: "hr_none") == nil)
        await #expect(throws: ApprovalError.unknownRequest("hr_none")) {
            _ = try await first.update(id: "hr_none") { _ in HeldRequestUpdate() }
        }
    }

    @Test("six approvals racing on two instances are all counted", arguments: StoreBackend.allCases)
    func racingApprovals(backend: StoreBackend) async throws {
        let open = try await backend.heldRequestStores()
        let stores = [try await open(), try await open()]
        let request = try await stores[0].insert(Self.request(id: "hr_race", required: 6))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                let store = stores[index % 2]
                group.addTask {
                    let approver = Approver(name: "approver\(index)", groups: ["treasury"])
                    _ = try await store.update(id: request.id) {
                        $0.deciding(.approve(digest: request.digest), by: approver, at: 1_800_000_010)
                    }
                }
            }
            try await group.waitForAll()
        }
        let stored = try #require(try await stores[1].request(id: request.id))
        #expect(Set(stored.approvers) == Set((0..<6).map { "approver\($0)" }))
        #expect(stored.status == .approved)
    }

    @Test("eight instances claim one signing: exactly one gets it", arguments: StoreBackend.allCases)
    func oneSigner(backend: StoreBackend) async throws {
        let open = try await backend.heldRequestStores()
        let stores = [try await open(), try await open()]
        var request = Self.request(id: "hr_claim", required: 1)
        request.status = .approved
        _ = try await stores[0].insert(request)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                let store = stores[index % 2]
                group.addTask {
                    do throws(ApprovalError) {
                        _ = try await store.update(id: "hr_claim") {
                            $0.claimingSigning(at: 1_800_000_020, leaseSeconds: 60)
                        }
                        return "claimed"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "claimed" }.count == 1, "\(outcomes)")
        #expect(
            outcomes.filter { $0 == ApprovalError.signingElsewhere(id: "hr_claim").description }.count == 7,
            "\(outcomes)")
        // Once its lease lapsed, another instance may take it over.
        let taken = try await stores[1].update(id: "hr_claim") {
            $0.claimingSigning(at: 1_800_000_080, leaseSeconds: 60)
        }
        #expect(taken.status == .signing && taken.signingUntil == 1_800_000_140)
    }

    @Test("listed by status, oldest first, at most the limit", arguments: StoreBackend.allCases)
    func listing(backend: StoreBackend) async throws {
        let store = try await backend.heldRequestStores()()
        for (index, id) in ["hr_c", "hr_a", "hr_b"].enumerated() {
            var request = Self.request(id: id, required: 1, createdAt: 1_800_000_000 + Int64(index))
            if id == "hr_b" { request.status = .signed }
            _ = try await store.insert(request)
        }
        #expect(try await store.requests(in: [.held], limit: 10).map(\.id) == ["hr_c", "hr_a"])
        #expect(try await store.requests(in: [.held, .signed], limit: 2).map(\.id) == ["hr_c", "hr_a"])
        #expect(try await store.requests(in: [.signed, .approved], limit: 10).map(\.id) == ["hr_b"])
    }
}
