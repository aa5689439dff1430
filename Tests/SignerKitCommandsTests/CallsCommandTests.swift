import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// `signerkit calls send` and `calls status` against a Prague local EVM with SignerKit's batch executor: the
/// command-line contract (the id on stdout, the status object, exit 65 naming EIP-5792's code).
@Suite("calls send and calls status")
struct CallsCommandTests {
    static let payee = "0x00000000000000000000000000000000000000aa"
    static let otherPayee = "0x00000000000000000000000000000000000000bb"

    static func batch(id: String?, atomicRequired: Bool, from: String = Actions.address) -> String {
        let idMember = id.map { #""id":"\#($0)","# } ?? ""
        return #"""
            {"version":"2.0.0",\#(idMember)"from":"\#(from)","chainId":"0x7e5","atomicRequired":\#(atomicRequired),
             "calls":[{"to":"\#(payee)","value":"0x10"},{"to":"\#(otherPayee)","value":"0x20"}]}
            """#
    }

    @Test("atomic through the key's own delegation: the id, status 200, the same file once; 5760, 5730, from checked")
    func sendAndStatus() async throws {
        let alpha = try Address(Actions.address)
        let deployer = try TestKeys.signer(TestKeys.betaHex)
        let node = try await LocalEVM.start(fund: [alpha, deployer.address], chainId: 2021)
        defer { node.stop() }
        let executor = try await BatchExecutorDeployment.deploy(on: node, deployerKeyHex: TestKeys.betaHex)
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let journal = directory.path("journal.jsonl")
        let common = ["--key-file", key, "--rpc-url", node.url.absoluteString, "--journal", journal]
        func nonce() async throws -> String? {
            try await node.call("eth_getTransactionCount", [.string(alpha.lowercased), .string("latest")]).stringValue
        }

        // No executor allowed: atomicity cannot be promised, nothing is sent.
        let refused = await signerkit(
            ["calls", "send"] + common + ["-"], stdin: Self.batch(id: "c1", atomicRequired: true))
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("EIP-5792 code 5760"), "\(refused)")
        #expect(refused.stdout.isEmpty)
        #expect(try await nonce() == "0x0")

        let file = try directory.write("calls.json", Self.batch(id: "c1", atomicRequired: true))
        let allow = ["--allow-delegate", executor.address.checksummed]
        let sent = await signerkit(["calls", "send"] + common + allow + [file])
        #expect(sent.status == 0, "\(sent)")
        #expect(sent.stdout == "c1\n")
        #expect(try await nonce() == "0x2", "one type-4 transaction, its authorization taking the next nonce")
        #expect(try await node.call("eth_getBalance", [.string(Self.payee), .string("latest")]) == .string("0x10"))

        let status = await signerkit([
            "calls", "status", "--rpc-url", node.url.absoluteString, "--journal", journal, "c1",
        ])
        #expect(status.status == 0, "\(status)")
        let object = try JSONValue(parsing: status.stdout)
        #expect(object["status"] == .number("200"))
        #expect(object["atomic"] == .bool(true))
        #expect(object["id"] == .string("c1"))
        #expect(object["receipts"]?.arrayValue?.count == 1)

        // The same file again: the same id, nothing sent.
        let again = await signerkit(["calls", "send"] + common + allow + [file])
        #expect(again.stdout == "c1\n")
        #expect(try await nonce() == "0x2")

        let unknown = await signerkit(
            ["calls", "status", "--rpc-url", node.url.absoluteString, "--journal", journal, "nope"])
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("5730"))
        let stranger = await signerkit(
            ["calls", "send"] + common + ["-"],
            stdin: Self.batch(id: nil, atomicRequired: false, from: "0x00000000000000000000000000000000000000cc"))
        #expect(stranger.status == 65)
        #expect(stranger.stderr.contains("is not the signing key's address"))
        let malformed = await signerkit(["calls", "send"] + common + ["-"], stdin: #"{"version":"1.0"}"#)
        #expect(malformed.status == 65)
        #expect(malformed.stderr.contains("version"))
    }
}
