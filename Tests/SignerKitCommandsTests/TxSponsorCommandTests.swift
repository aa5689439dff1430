import EthereumPrimitives
import EthereumTransactions
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// A row of ronin_sponsored.jsonl, as the two commands see it.
struct SponsoredVector: CustomTestStringConvertible, Sendable {
    let row: JSONValue
    var testDescription: String { row["name"]?.stringValue ?? "?" }
    func string(_ key: String) -> String { row[key]?.stringValue ?? "" }
    var tx: JSONValue { row["tx"] ?? .null }

    static var all: [SponsoredVector] { get throws { try Fixtures.rows("ronin_sponsored.jsonl").map(Self.init) } }
}

@Suite("tx sponsor and tx sign for Ronin sponsored transactions (type 0x64)")
struct TxSponsorCommandTests {
    @Test(
        "vectors: the payer's fields, then the sender's raw transaction and hash byte for byte",
        arguments: try SponsoredVector.all)
    func vectors(_ vector: SponsoredVector) async throws {
        let directory = try TemporaryDirectory()
        let payerKey = try directory.write("payer", vector.string("payerPrivateKey") + "\n")
        let senderKey = try directory.write("sender", vector.string("senderPrivateKey") + "\n")
        let request = try directory.write("tx.json", vector.tx.serialized)
        let expiresNever = vector.row["tags"]?.arrayValue?.contains(.string("expiredTime=0")) == true
        let sponsored = await signerkit(
            ["tx", "sponsor", "--key-file", payerKey, request] + (expiresNever ? ["--allow-no-expiry"] : []))
        #expect(sponsored.status == 0, "\(sponsored)")
        expectNoKeyMaterial(sponsored, key: vector.string("payerPrivateKey"))
        let printed = try JSONValue(parsing: sponsored.stdout)
        let payerSignature = try #require(vector.row["payerSignature"])
        #expect(printed["payer"]?.stringValue == vector.string("payer"))
        #expect(printed["payerV"] == payerSignature["yParity"])
        #expect(printed["payerR"] == payerSignature["r"])
        #expect(printed["payerS"] == payerSignature["s"])

        let signed = await signerkit(["tx", "sign", "--key-file", senderKey, "-"], stdin: sponsored.stdout)
        expectSuccess(signed, [#"{"raw":"\#(vector.string("rawTransaction"))","hash":"\#(vector.string("hash"))"}"#])
        expectNoKeyMaterial(signed, key: vector.string("senderPrivateKey"))
    }

    @Test("refusals: no expiry, payer = sender, a payer signature that does not recover to payer")
    func refusals() async throws {
        let vector = try #require(try SponsoredVector.all.first)
        let directory = try TemporaryDirectory()
        let payerKey = try directory.write("payer", vector.string("payerPrivateKey") + "\n")
        let senderKey = try directory.write("sender", vector.string("senderPrivateKey") + "\n")
        guard case .object(let tx) = vector.tx else { return #expect(Bool(false)) }
        func file(_ changes: [String: JSONValue]) throws -> String {
            var object = tx
            for (key, value) in changes { object[key] = value }
            return try directory.write("tx-\(changes.keys.sorted().joined()).json", JSONValue.object(object).serialized)
        }
        // expiredTime 0 only with --allow-no-expiry.
        let open = try file(["expiredTime": "0x0"])
        expectInvalid(await signerkit(["tx", "sponsor", "--key-file", payerKey, open]), "expiredTime")
        #expect(await signerkit(["tx", "sponsor", "--key-file", payerKey, "--allow-no-expiry", open]).status == 0)
        // The payer may not be the sender, and a named payer must be the key.
        expectInvalid(await signerkit(["tx", "sponsor", "--key-file", senderKey, try file(["payer": .null])]), "payer")
        expectInvalid(await signerkit(["tx", "sponsor", "--key-file", senderKey, try file([:])]), "payer")
        // The sender refuses a payer signature that recovers to someone else than `payer`.
        let sponsored = await signerkit(["tx", "sponsor", "--key-file", payerKey, try file([:])])
        guard case .object(var signedByPayer) = try JSONValue(parsing: sponsored.stdout) else {
            return #expect(Bool(false))
        }
        signedByPayer["payer"] = .string(Address(bytes: [UInt8](repeating: 0x11, count: 20))!.checksummed)
        let tampered = await signerkit(
            ["tx", "sign", "--key-file", senderKey, "-"], stdin: JSONValue.object(signedByPayer).serialized)
        expectInvalid(tampered, "payerV", "payerR", "payerS")
        // Not yet signed by the payer: the sender has nothing to sign.
        expectInvalid(await signerkit(["tx", "sign", "--key-file", senderKey, try file([:])]), "payerV")
    }
}
