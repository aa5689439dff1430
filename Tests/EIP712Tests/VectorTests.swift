import EIP712
import EthereumPrimitives
import Secp256k1
import Testing

/// One fixture row, shown in test output by its name only.
struct VectorRow: Sendable, CustomTestStringConvertible {
    let json: JSONValue
    var testDescription: String { json["name"]?.stringValue ?? "?" }
    subscript(key: String) -> JSONValue? { json[key] }
    func string(_ key: String) -> String { json.string(key) }
}

@Suite struct EIP712VectorTests {
    static let rows: [VectorRow] = ((try? Fixtures.jsonLines("eip712.jsonl")) ?? []).map(VectorRow.init)
    static let invalidRows: [VectorRow] = ((try? Fixtures.jsonLines("eip712_invalid.jsonl")) ?? []).map(VectorRow.init)

    @Test func fixturesLoaded() {
        #expect(Self.rows.count == 175)
        #expect(Self.invalidRows.count == 23)
    }

    @Test(arguments: rows)
    func hashesMatch(row: VectorRow) throws {
        let typedData = try TypedData(json: try #require(row["typedData"]))
        let hashes = try typedData.hashes()
        #expect(hashes.domainSeparator.hex == row.string("domainSeparator"), "\(row.string("name"))")
        #expect(hashes.structHash.hex == row.string("structHash"), "\(row.string("name"))")
        #expect(hashes.digest.hex == row.string("digest"), "\(row.string("name"))")
    }

    @Test(arguments: rows)
    func typedDataAsJSONStringMatches(row: VectorRow) throws {
        let object = try #require(row["typedData"])
        let asString = JSONValue.string(object.serialized)
        #expect(try TypedData(json: asString).digest().hex == row.string("digest"))
    }

    @Test(arguments: rows)
    func compiledSchemaMatches(row: VectorRow) throws {
        let typedData = try TypedData(json: try #require(row["typedData"]))
        let compiled = try typedData.compile()
        #expect(try compiled.digest(message: typedData.message).hex == row.string("digest"))
        #expect(try compiled.digest(message: typedData.message).hex == row.string("digest"))
    }

    @Test(arguments: invalidRows)
    func invalidRowsAreRejected(row: VectorRow) {
        let name = row.string("name")
        let result: Result<TypedDataHashes, EIP712Error>
        if let text = row["typedDataJson"]?.stringValue {
            result = Result { () throws(EIP712Error) in try TypedData(jsonText: text).hashes() }
        } else if let object = row["typedData"] {
            result = Result { () throws(EIP712Error) in try TypedData(json: object).hashes() }
        } else {
            Issue.record("row \(name) has no typed data")
            return
        }
        switch result {
        case .success(let hashes): Issue.record("\(name) accepted, digest \(hashes.digest)")
        case .failure(let error): #expect(!error.description.isEmpty)
        }
    }
}

@Suite struct EIP712SignatureVectorTests {
    @Test(arguments: EIP712VectorTests.rows)
    func signatureMatchesAndRecovers(row: VectorRow) throws {
        let typedData = try TypedData(json: try #require(row["typedData"]))
        let digest = try typedData.digest()
        let key = try PrivateKey(hex: row.string("privateKey"))
        #expect(key.address.checksummed == row.string("address"))
        let signature = key.sign(prehash: digest)
        #expect(signature.hex == row.string("signature"), "\(row.string("name"))")
        let recovered = try ECDSA.recoverAddress(
            prehash: digest, signature: RecoverableSignature(hex: row.string("signature")))
        #expect(recovered.checksummed == row.string("address"))
    }
}
