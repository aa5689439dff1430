import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// A row of the shared transactions.jsonl vectors.
struct TransactionVector: CustomTestStringConvertible, Sendable {
    let name, privateKey, rawTransaction, hash, sender: String
    /// The eth_sendTransaction object, compact JSON text.
    let transactionJSON: String
    /// The object itself.
    let transaction: JSONObject

    init(_ row: JSONValue) throws {
        guard case .object(let object)? = row["tx"] else { throw FixtureError(description: "missing tx") }
        name = try row.vectorString("name")
        privateKey = try row.vectorString("privateKey")
        rawTransaction = try row.vectorString("rawTransaction")
        hash = try row.vectorString("hash")
        sender = try row.vectorString("sender")
        transaction = object
        transactionJSON = JSONValue.object(object).serialized
    }

    /// The transaction JSON without `field`.
    func without(_ field: String) -> String {
        JSONValue.object(JSONObject(members: transaction.members.filter { $0.key != field })).serialized
    }

    /// `{"raw":…,"hash":…}` as `tx sign` must print it.
    var expectedOutput: String { "{\"raw\":\"\(rawTransaction)\",\"hash\":\"\(hash)\"}" }

    var testDescription: String { name }

    static var all: [TransactionVector] {
        get throws {
            try Fixtures.rows("transactions.jsonl", named: Fixtures.transactionRowNames).map(TransactionVector.init)
        }
    }
}

@Suite("tx sign")
struct TxCommandTests {
    @Test("vectors: raw transaction and hash byte for byte", arguments: try TransactionVector.all)
    func vectors(_ vector: TransactionVector) async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey + "\n")
        let file = try directory.write("tx.json", vector.transactionJSON)
        let fromFile = await signerkit(["tx", "sign", "--key-file", key, file])
        expectSuccess(fromFile, [vector.expectedOutput])
        expectNoKeyMaterial(fromFile, key: vector.privateKey)
        expectSuccess(
            await signerkit(["tx", "sign", "--key-file", key, "-"], stdin: vector.transactionJSON),
            [vector.expectedOutput])
        expectSuccess(
            await signerkit(["tx", "sign", "--key-file", key], stdin: vector.transactionJSON), [vector.expectedOutput])
        // The output is JSON whose raw transaction decodes to the vector's sender.
        let output = try JSONValue(parsing: fromFile.stdout)
        let signed = try SignedTransaction.decode(hex: try #require(output["raw"]?.stringValue))
        #expect(try signed.recoverSender().checksummed == vector.sender)
        #expect(signed.hash.hex == output["hash"]?.stringValue)
    }

    @Test("a missing field exits 65 naming it; nothing on stdout")
    func missingFields() async throws {
        let vector = try #require(try TransactionVector.all.first { $0.name == "tx-26-eip1559" })
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey)
        for field in ["chainId", "nonce", "gas", "maxFeePerGas", "maxPriorityFeePerGas"] {
            let result = await signerkit(["tx", "sign", "--key-file", key], stdin: vector.without(field))
            expectInvalid(result, "error: field \"\(field)\" is missing")
        }
        let legacy = try #require(try TransactionVector.all.first { $0.name == "tx-04-legacy" })
        expectInvalid(
            await signerkit(["tx", "sign", "--key-file", key], stdin: legacy.without("gasPrice")),
            "field \"gasPrice\" is missing")
    }

    @Test("malformed transactions name the field; a foreign from is refused")
    func malformed() async throws {
        let vector = try #require(try TransactionVector.all.first { $0.name == "tx-26-eip1559" })
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey)
        let badGas = vector.transactionJSON.replacingOccurrences(of: "\"gas\":\"", with: "\"gas\":\"0xzz")
        expectInvalid(
            await signerkit(["tx", "sign", "--key-file", key], stdin: badGas), "field \"gas\": invalid quantity")
        expectInvalid(await signerkit(["tx", "sign", "--key-file", key], stdin: "[]"), "must be a JSON object")
        expectInvalid(await signerkit(["tx", "sign", "--key-file", key], stdin: "{"), "invalid JSON")
        let other = try #require(try TransactionVector.all.first { $0.name == "tx-04-legacy" })
        let otherKey = try directory.write("other", other.privateKey)
        expectInvalid(
            await signerkit(["tx", "sign", "--key-file", otherKey], stdin: vector.transactionJSON),
            "field \"from\": \(vector.sender) is not the signing key's address")
        expectInvalid(await signerkit(["tx", "sign"], stdin: vector.transactionJSON), "missing --key-file")
    }
}
