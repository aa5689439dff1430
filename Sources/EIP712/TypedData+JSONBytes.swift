import EthereumPrimitives

extension TypedData {
    /// Domain separator, struct hash and digest of typed-data JSON bytes (an object, or a JSON string
    /// holding one): the same answer, or the same error, as parsing them (``init(json:)``) and calling
    /// ``hashes()``.
    ///
    /// When the document's `types`, `primaryType` and `domain` are byte for byte those of a document
    /// compiled before (``EIP712SchemaCache/shared``), only `message` is parsed: the schema members are
    /// neither parsed nor validated again, since identical bytes were. This is the path for batches that
    /// repeat a few schemas (`signerkit typed-data hash --jsonl`); any other document is parsed whole.
    public static func hashes(jsonUTF8 bytes: [UInt8]) throws(EIP712Error) -> TypedDataHashes {
        if let hashes = repeatedSchemaHashes(bytes) { return hashes }
        let document: JSONDocument
        do { document = try JSONDocument(bytes: bytes) } catch { throw EIP712Error(.invalidJSON(error)) }
        return try TypedData(json: document.root).hashes()
    }

    /// The fast path: `nil` whenever it cannot answer exactly as the full parse would (another shape, a
    /// schema not cached, a message that does not parse or hash), and the caller parses the whole document.
    private static func repeatedSchemaHashes(_ bytes: [UInt8]) -> TypedDataHashes? {
        bytes.withUnsafeBufferPointer { buffer -> TypedDataHashes? in
            guard let scan = TypedDataQuickScan.scan(buffer) else { return nil }
            var key: [UInt8] = []
            key.reserveCapacity(scan.types.count + scan.primaryType.count + scan.domain.count + 2)
            key.append(contentsOf: buffer[scan.types])
            key.append(0)
            key.append(contentsOf: buffer[scan.primaryType])
            key.append(0)
            key.append(contentsOf: buffer[scan.domain])
            guard let compiled = EIP712SchemaCache.shared.cached(key: key),
                let message = try? JSONDocument(bytes: Array(buffer[scan.message]))
            else { return nil }
            return try? compiled.hashes(message: message.root)
        }
    }
}
