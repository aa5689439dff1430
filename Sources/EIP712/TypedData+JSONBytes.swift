import EthereumPrimitives

extension TypedData {
    /// Domain separator, struct hash and digest of typed-data JSON bytes (an object, or a JSON string
    /// holding one): the same answer, or the same error, as parsing them (`init(json:)`) and calling
    /// ``hashes()``.
    ///
    /// When the document's `types`, `primaryType` and `domain` are byte for byte those of a document
    /// compiled before (``EIP712SchemaCache/shared``), only `message` is parsed: the schema members are
    /// neither parsed nor validated again, since identical bytes were. This is the path for batches that
    /// repeat a few schemas (`signerkit typed-data hash --jsonl`); any other document is parsed whole.
    public static func hashes(jsonUTF8 bytes: [UInt8]) throws(EIP712Error) -> TypedDataHashes {
        try hashesAndSchema(jsonUTF8: bytes).hashes
    }

    /// ``hashes(jsonUTF8:)`` with the compiled schema that answered, for comparing later documents with it.
    static func hashesAndSchema(jsonUTF8 bytes: [UInt8]) throws(EIP712Error) -> (
        hashes: TypedDataHashes, schema: EIP712SchemaCache.RecentSchema
    ) {
        if let found = repeatedSchemaHashes(bytes) { return found }
        let document: JSONDocument
        do { document = try JSONDocument(bytes: bytes) } catch { throw EIP712Error(.invalidJSON(error)) }
        let typedData = try TypedData(json: document.root)
        let schema = try EIP712SchemaCache.shared.schema(typedData)
        return (try schema.compiled.hashes(message: typedData.message), schema)
    }

    /// The fast path: `nil` whenever it cannot answer exactly as the full parse would (another shape, a
    /// schema not among the recent ones, a message that does not parse or hash), and the caller parses the
    /// whole document.
    private static func repeatedSchemaHashes(_ bytes: [UInt8]) -> (
        hashes: TypedDataHashes, schema: EIP712SchemaCache.RecentSchema
    )? {
        let cache = EIP712SchemaCache.shared
        for schema in cache.recentSchemas() {
            switch hashes(bytes, against: schema) {
            case .notThisSchema: continue
            case .failed: return nil
            case .hashed(let hashes):
                cache.noteRepeatedDocuments(schema, count: 1)
                return (hashes, schema)
            }
        }
        return nil
    }

    /// What comparing a document with one recent schema gave.
    enum RepeatedSchemaOutcome {
        /// The document's schema members are not byte for byte those of the schema.
        case notThisSchema
        /// They are, but the message does not parse or hash (the full parse then reports why).
        case failed
        /// The document's hashes.
        case hashed(TypedDataHashes)
    }

    /// Compares the document with `schema` and, when its schema members are the same bytes, parses and
    /// hashes only its message.
    static func hashes(_ bytes: [UInt8], against schema: EIP712SchemaCache.RecentSchema) -> RepeatedSchemaOutcome {
        let message = bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
            guard let range = RepeatedSchemaMatch.messageRange(in: buffer, schema: schema) else { return nil }
            return Array(buffer[range])
        }
        guard let message else { return .notThisSchema }
        guard let document = try? JSONDocument(bytes: message),
            let hashes = try? schema.compiled.hashes(message: document.root)
        else { return .failed }
        return .hashed(hashes)
    }
}
