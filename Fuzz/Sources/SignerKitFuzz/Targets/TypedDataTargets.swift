import EIP712
import EthereumPrimitives

/// EIP-712 typed data from dapps and Pay: every way of hashing a document gives the same digest.
enum TypedDataTargets {
    static let typedData = FuzzTarget(
        name: "typed-data",
        summary: "EIP-712 parse, compile, hash: cached, uncached, compiled-schema, JSONValue and repeated-schema "
            + "(hashes(jsonUTF8:)) paths agree, or all refuse"
    ) { bytes in
        let fromBytes = try? TypedData.hashes(jsonUTF8: bytes)
        // Twice: the second call may take the repeated-schema path (schema bytes already cached).
        let repeated = try? TypedData.hashes(jsonUTF8: bytes)
        FuzzCheck.expect(fromBytes == repeated, "hashes(jsonUTF8:) gives another answer the second time")
        guard let document = try? JSONDocument(bytes: bytes) else {
            FuzzCheck.expect(fromBytes == nil, "hashes(jsonUTF8:) accepts a document that does not parse")
            return
        }
        let hashes: TypedDataHashes
        let typedData: TypedData
        do throws(EIP712Error) {
            typedData = try TypedData(json: document.root)
            hashes = try typedData.hashes()
        } catch {
            FuzzCheck.boundedDescription(error)
            FuzzCheck.expect(fromBytes == nil, "hashes(jsonUTF8:) accepts what TypedData refuses: \(error)")
            return
        }
        FuzzCheck.expect(fromBytes == hashes, "hashes(jsonUTF8:) and TypedData.hashes() disagree")
        FuzzCheck.expect(
            hashes.digest
                == TypedDataHashes(
                    domainSeparator: hashes.domainSeparator, structHash: hashes.structHash
                ).digest, "digest recomputed")
        guard let compiled = try? typedData.compile(), let uncached = try? typedData.compileUncached() else {
            FuzzCheck.expect(false, "a document that hashes does not compile")
            return
        }
        FuzzCheck.expect((try? compiled.hashes(message: typedData.message)) == hashes, "compiled schema differs")
        FuzzCheck.expect((try? uncached.hashes(message: typedData.message)) == hashes, "uncached schema differs")
        FuzzCheck.expect(compiled.domainSeparator == hashes.domainSeparator, "compiled domain separator differs")
        let message = typedData.message.value
        FuzzCheck.expect((try? compiled.digest(message: message)) == hashes.digest, "JSONValue message differs")
        if let value = try? JSONValue(parsing: bytes) {
            FuzzCheck.expect((try? TypedData(json: value).hashes()) == hashes, "JSONValue document differs")
        }
    }
}
