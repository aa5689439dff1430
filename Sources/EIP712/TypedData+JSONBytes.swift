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
    /// schema not among the recent ones, a message that does not parse or hash), and the caller parses the
    /// whole document.
    private static func repeatedSchemaHashes(_ bytes: [UInt8]) -> TypedDataHashes? {
        let cache = EIP712SchemaCache.shared
        for schema in cache.recentSchemas() {
            let message = bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
                guard let range = RepeatedSchemaMatch.messageRange(in: buffer, schema: schema) else { return nil }
                return Array(buffer[range])
            }
            guard let message else { continue }
            guard let document = try? JSONDocument(bytes: message),
                let hashes = try? schema.compiled.hashes(message: document.root)
            else { return nil }
            cache.noteRepeatedDocument(schema)
            return hashes
        }
        return nil
    }
}
