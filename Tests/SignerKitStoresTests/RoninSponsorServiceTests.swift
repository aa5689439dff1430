import EthereumPrimitives
import EthereumTransactions
import Foundation
import Secp256k1
import SignerKit
import SignerKitHTTPServer
import SignerKitService
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// `ronin_sponsorTransaction` in the signer service: the payer key configured in `roninPayers`, per-client
/// rights, the policy file's sponsor policy and quota counted in the service's store (SQLite; PostgreSQL shared
/// by several instances), the audit record.
@Suite("Ronin sponsorship in the signer service (SQLite, PostgreSQL)")
struct RoninSponsorServiceTests {
    static let studioToken = "studio-token-61f"
    static let walletToken = "wallet-token-0c2"

    /// Row 0 of ronin_sponsored.jsonl: a transfer on Ronin mainnet expiring at `expiredTime`.
    let row: JSONValue
    let request: TransactionRequest
    let payer: SoftwareKeySigner

    init() throws {
        row = try Vectors.rows("ronin_sponsored.jsonl")[0]
        request = try TransactionRequest(json: row["tx"] ?? .null)
        payer = try SoftwareKeySigner(hex: row["payerPrivateKey"]?.stringValue ?? "")
    }

    /// One service instance on `usage` (and an audit log in `directory`), the policy clock ten minutes before
    /// the row's expiry.
    func service(directory: URL, usage: any UsageCounterStore, maxTransactions: Int) throws -> ServiceHTTPHandler {
        func hash(_ token: String) -> String { Hex.encode(SHA256.hash(Array(token.utf8)), prefix: false) }
        let payerAddress = payer.address.checksummed
        let configuration = try ServiceConfiguration(
            jsonText: #"""
                {"listen": "127.0.0.1:0", "keys": [{"keyFile": "payer.hex"}], "chainId": "eip155:2020",
                 "roninPayers": ["\#(payerAddress)"],
                 "clients": [
                   {"name": "studio", "tokenSha256": "\#(hash(Self.studioToken))", "accounts": ["\#(payerAddress)"],
                    "methods": ["ronin_sponsorTransaction"]},
                   {"name": "wallet", "tokenSha256": "\#(hash(Self.walletToken))", "methods": ["personal_sign"]}]}
                """#, relativeTo: directory.path)
        let policy = #"""
            {"roninSponsor": {"allowedCalls": [{"contract": "\#(request.to?.checksummed ?? "")"}], "maxGas": "100000",
              "maxExpirySeconds": 3600},
             "roninSponsorQuota": {"windowSeconds": 86400, "maxTransactions": \#(maxTransactions)}}
            """#
        let expiry = TimeInterval(request.expiredTime ?? 0)
        let policies = try PolicyFile.policies(
            jsonText: policy, now: { Date(timeIntervalSince1970: expiry - 600) }, usageStore: usage)
        let service = try SignerService(
            configuration: configuration, signers: [payer], upstream: [:], policies: policies,
            audit: try AuditLog(path: directory.appendingPathComponent("audit.jsonl").path))
        return ServiceHTTPHandler(service: service, log: { _ in })
    }

    /// The sender's request from `sender` as a `ronin_sponsorTransaction` call.
    func call(from sender: Address? = nil, method: String = "ronin_sponsorTransaction") -> String {
        var asked = request
        if let sender { asked.from = sender }
        return JSONValue.object(
            JSONObject([
                "jsonrpc": .string("2.0"), "id": .number("1"), "method": .string(method),
                "params": .array([asked.json]),
            ])
        ).serialized
    }

    static func post(_ handler: ServiceHTTPHandler, _ body: String, token: String = studioToken) async -> JSONValue {
        let response = await handler.handle(
            HTTPServerRequest(
                method: "POST", target: "/", fields: [(name: "authorization", value: "Bearer \(token)")],
                body: Array(body.utf8)))
        return (try? JSONValue(parsing: response.body)) ?? .null
    }

    @Test(
        "the studio's client gets the request back with the payer's signature; the sender's key then signs the vector's raw transaction",
        arguments: StoreBackend.allCases)
    func sponsors(backend: StoreBackend) async throws {
        let directory = try Self.directory()
        let handler = try service(directory: directory, usage: try await backend.usageStores()(), maxTransactions: 2)
        let answer = await Self.post(handler, call())
        let result = try #require(answer["result"], "\(answer)")
        let sponsored = try TransactionRequest(json: result)
        let expected = try #require(row["payerSignature"])
        #expect(sponsored.payer == payer.address)
        #expect(
            result["payerR"]?.stringValue.map { try? UInt256(text: $0) }
                == (try? UInt256(text: expected["r"]?.stringValue ?? "")))
        #expect(
            result["payerS"]?.stringValue.map { try? UInt256(text: $0) }
                == (try? UInt256(text: expected["s"]?.stringValue ?? "")))
        let sender = try PrivateKey(hex: row["senderPrivateKey"]?.stringValue ?? "")
        let signed = try sponsored.roninSponsored(chainId: sponsored.chainId).sign(with: sender)
        #expect(Hex.encode(signed.rawTransaction) == row["rawTransaction"]?.stringValue)

        // The quota: the second is admitted, the third refused by policy, naming the sender and the limit.
        #expect(await Self.post(handler, call())["result"] != nil)
        let refused = await Self.post(handler, call())
        #expect(refused["error"]?["code"]?.numberText == String(JSONRPCError.policyRefusedCode))
        #expect(refused["error"]?["message"]?.stringValue?.contains("has used 2 of 2 sponsored transactions") == true)

        // Rights: a client without the method is forbidden; the payer key signs nothing but sponsorships.
        let forbidden = await Self.post(handler, call(), token: Self.walletToken)
        #expect(forbidden["error"]?["code"]?.numberText == "-32001")
        let message =
            #"{"jsonrpc":"2.0","id":2,"method":"personal_sign","params":["0x68690a","\#(payer.address.checksummed)"]}"#
        let notForPayer = await Self.post(handler, message, token: Self.walletToken)
        #expect(
            notForPayer["error"]?["message"]?.stringValue?.contains("ronin_sponsorTransaction") == true,
            "\(notForPayer)")

        // A call to a contract the policy does not sponsor.
        var elsewhere = request
        elsewhere.to = try Address("0x000000000000000000000000000000000000bEEF")
        let body = JSONValue.object(
            JSONObject([
                "jsonrpc": .string("2.0"), "id": .number("3"), "method": .string("ronin_sponsorTransaction"),
                "params": .array([elsewhere.json]),
            ])
        ).serialized
        let notSponsored = await Self.post(handler, body)
        #expect(notSponsored["error"]?["message"]?.stringValue?.contains("is not a sponsored contract") == true)

        // Every call is audited, the sponsored ones with their method, client and payer.
        let audit = try String(contentsOf: directory.appendingPathComponent("audit.jsonl"), encoding: .utf8)
        let sponsorLines = audit.split(separator: "\n").filter { $0.contains("ronin_sponsorTransaction") }
        #expect(sponsorLines.count >= 4)
        #expect(sponsorLines.contains { $0.contains("studio") && $0.contains(payer.address.checksummed) })
    }

    @Test(
        "two instances sharing one store racing for a sender's last sponsored transaction: exactly one is admitted",
        arguments: StoreBackend.allCases)
    func instancesRaceForTheLastUnit(backend: StoreBackend) async throws {
        let open = try await backend.usageStores()
        let first = try service(directory: try Self.directory(), usage: try await open(), maxTransactions: 1)
        let second = try service(directory: try Self.directory(), usage: try await open(), maxTransactions: 1)
        for round in 0..<6 {
            let sender = try Address("0x00000000000000000000000000000000000a" + String(format: "%04x", round))
            let body = call(from: sender)
            async let a = Self.post(first, body)
            async let b = Self.post(second, body)
            let answers = await [a, b]
            #expect(answers.filter { $0["result"] != nil }.count == 1, "round \(round): \(answers)")
            #expect(answers.filter { $0["error"]?["code"]?.numberText == "-32002" }.count == 1, "round \(round)")
        }
    }

    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-sponsor-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        TemporaryPaths.removeAtExit(directory.path)
        return directory
    }
}

extension JSONValue {
    /// A number's text (`-32002`), else `nil`.
    fileprivate var numberText: String? {
        if case .number(let text) = self { return text }
        return nil
    }
}
