import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitPostgres
import SignerKitService
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Two signer-service instances on one PostgreSQL database: an approval taken on one instance and a long-poll on
/// the other; a client's limit raced through both, exactly the limit signed and every other payment held.
@Suite("Approvals on two instances sharing PostgreSQL")
struct ApprovalsTwoInstanceTests {
    static let chain = ChainID(eip155: 2021)
    static let names = ["payouts", "alice", "bob"]

    /// An instance on `configuration` (the shared database), signing with `key`, under `policies` (its usage
    /// counted in `usage`), its long-polls reading the store every 50 ms.
    static func instance(
        _ database: PostgresConfiguration, key: SoftwareKeySigner, policies: [any ActionPolicy]
    ) async throws -> SignerService {
        let clients = names.map { name in
            let hash = Hex.encode(SHA256.hash(Array("token-\(name)".utf8)), prefix: false)
            let roles = name == "payouts" ? "" : #", "roles": ["approver"], "groups": ["treasury"]"#
            return #"{"name": "\#(name)", "tokenSha256": "\#(hash)"\#(roles)}"#
        }
        let configuration = try ServiceConfiguration(
            jsonText: #"""
                {"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "chainId": "eip155:2021",
                 "clients": [\#(clients.joined(separator: ", "))], "approvals": {"pollIntervalMs": 50}}
                """#, relativeTo: "/")
        return try SignerService(
            configuration: configuration, signers: [key], upstream: [:], policies: policies,
            heldRequestStore: try await PostgresHeldRequestStore(configuration: database))
    }

    /// One call as client `name`: the answer object.
    static func call(_ service: SignerService, _ name: String, _ method: String, _ params: String) async throws
        -> JSONValue
    {
        let client = try #require(service.clients.first { $0.name == name })
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        let answer = try #require(await service.answer(body: Array(body.utf8), client: client))
        return try JSONValue(parsing: answer)
    }

    /// A complete `eth_signTransaction` of `wei` from `key` with `nonce`.
    static func payment(_ key: SoftwareKeySigner, wei: Int, nonce: Int) -> String {
        #"[{"from":"\#(key.address.lowercased)","to":"0x00000000000000000000000000000000000005a0","value":"0x\#(String(wei, radix: 16))","nonce":"0x\#(String(nonce, radix: 16))","gas":"0x5208","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00","chainId":"0x7e5"}]"#
    }

    @Test("held on one instance, approved on both, the long-poll on the first sees it signed, once")
    func approvalAcrossInstances() async throws {
        let database = try await StoreBackend.freshDatabase()
        let key = SoftwareKeySigner.generate()
        let rule = ApprovalRule(
            "every-payment", above: [.init(chain: Self.chain, asset: .native, above: 0)], group: "treasury",
            required: 2)
        let (one, two) = (
            try await Self.instance(database, key: key, policies: [rule]),
            try await Self.instance(database, key: key, policies: [rule])
        )
        let held = try await Self.call(one, "payouts", "eth_signTransaction", Self.payment(key, wei: 100, nonce: 0))
        let id = try #require(held["error"]?["data"]?["requestId"]?.stringValue, "\(held.serialized)")
        let poll = Task {
            try await Self.call(one, "payouts", "signerkit_requestStatus", #"["\#(id)", {"waitMs": 25000}]"#)
        }
        #expect(try await Self.call(two, "alice", "signerkit_approve", #"["\#(id)"]"#)["result"]?["status"] == "held")
        let signed = try await Self.call(two, "bob", "signerkit_approve", #"["\#(id)"]"#)
        let raw = try #require(signed["result"]?["result"]?.stringValue, "\(signed.serialized)")
        let polled = try await poll.value
        #expect(polled["result"]?["status"] == "signed" && polled["result"]?["result"]?.stringValue == raw)
        // Signed once: neither instance signs it again.
        #expect(try await Self.call(one, "alice", "signerkit_approve", #"["\#(id)"]"#).errorCode == -32011)
        #expect(await one.sweepHeldRequests() == (expired: 0, signed: 0))
        #expect(await two.sweepHeldRequests() == (expired: 0, signed: 0))
    }

    @Test("12 payments of 100 raced through two instances against a client's 500 a day: 5 signed, 7 held")
    func limitRacedThroughTwoInstances() async throws {
        let database = try await StoreBackend.freshDatabase()
        let key = SoftwareKeySigner.generate()
        var instances: [SignerService] = []
        for _ in 0..<2 {
            let limit = SpendLimit(
                [.init(chain: Self.chain, asset: .native, maximum: 500)], rolling: true, per: .client,
                holdWhenExceeded: ApprovalRequirement(
                    rule: "over-limit", group: "treasury", required: 2, lifetimeSeconds: 600),
                store: try await PostgresUsageCounterStore(configuration: database))
            instances.append(try await Self.instance(database, key: key, policies: [limit]))
        }
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<12 {
                let service = instances[index % 2]
                group.addTask {
                    let answer = try await Self.call(
                        service, "payouts", "eth_signTransaction", Self.payment(key, wei: 100, nonce: index))
                    if answer["result"]?.stringValue != nil { return "signed" }
                    return answer["error"]?["data"]?["rule"]?.stringValue ?? answer.serialized
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "signed" }.count == 5, "\(outcomes)")
        #expect(outcomes.filter { $0 == "over-limit" }.count == 7, "\(outcomes)")
        let list = try await Self.call(instances[1], "alice", "signerkit_heldRequests", "[]")
        #expect(list["result"]?.arrayValue?.count == 7)
    }
}

extension JSONValue {
    /// The error code of an answer object.
    fileprivate var errorCode: Int? {
        guard case .number(let text)? = self["error"]?["code"] else { return nil }
        return Int(text)
    }
}
