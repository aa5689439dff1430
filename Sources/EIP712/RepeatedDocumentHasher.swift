import EthereumPrimitives

/// ``TypedData/hashes(jsonUTF8:)`` for one worker of a batch: the same answers, with the schema of the last
/// document kept at hand, so a run of documents of one schema does not touch the shared
/// ``EIP712SchemaCache`` for every document.
///
/// A document whose `types`, `primaryType` and `domain` are byte for byte those of the schema at hand has
/// only its message parsed; any other goes through ``TypedData/hashes(jsonUTF8:)``, after which the schema
/// that answered it is the one at hand. Once a schema has answered ``privateCopyAfter`` documents in a row,
/// the hasher compiles its own copy of it: every worker hashing with one shared compiled schema would
/// otherwise pass the cache lines of its reference counts back and forth between cores on every document.
/// The hits are reported to the cache (statistics, recency) every ``reportEvery`` documents and when the
/// hasher is released. Not `Sendable`: one per task.
package final class RepeatedDocumentHasher {
    /// How many documents answered at hand are reported to the cache at once.
    package static let reportEvery = 64
    /// How many documents in a row a shared schema answers before the hasher compiles its own copy.
    package static let privateCopyAfter = 64

    /// The schema at hand; a class, so that comparing a document with it copies no reference.
    private final class AtHand {
        let schema: EIP712SchemaCache.RecentSchema
        /// Whether the hasher compiled it itself (nothing else holds its storage).
        let isPrivate: Bool

        init(_ schema: EIP712SchemaCache.RecentSchema, isPrivate: Bool) {
            self.schema = schema
            self.isPrivate = isPrivate
        }
    }

    private let cache = EIP712SchemaCache.shared
    private var atHand: AtHand?
    private var inARow = 0
    private var unreported = 0

    /// A hasher with no schema at hand yet.
    package init() {}

    deinit { report() }

    /// Whether the schema at hand is the hasher's own copy (see ``privateCopyAfter``).
    package var holdsPrivateCopy: Bool { atHand?.isPrivate ?? false }

    /// Domain separator, struct hash and digest of typed-data JSON bytes: exactly what
    /// ``TypedData/hashes(jsonUTF8:)`` answers or throws.
    package func hashes(jsonUTF8 bytes: [UInt8]) throws(EIP712Error) -> TypedDataHashes {
        if let atHand, case .hashed(let hashes) = TypedData.hashes(bytes, against: atHand.schema) {
            unreported += 1
            if unreported >= Self.reportEvery { report() }
            if !atHand.isPrivate {
                inARow += 1
                if inARow >= Self.privateCopyAfter { makePrivateCopy(of: atHand.schema, from: bytes) }
            }
            return hashes
        }
        report()
        inARow = 0
        let (hashes, schema) = try TypedData.hashesAndSchema(jsonUTF8: bytes)
        atHand = AtHand(schema, isPrivate: false)
        return hashes
    }

    /// Compiles `schema` again from `bytes` (a document it answered), into storage of the hasher's own.
    private func makePrivateCopy(of schema: EIP712SchemaCache.RecentSchema, from bytes: [UInt8]) {
        inARow = 0
        guard let document = try? JSONDocument(bytes: bytes), let typedData = try? TypedData(json: document.root),
            let compiled = try? typedData.compileUncached()
        else { return }
        let key = EIP712SchemaCache.key(typedData)
        guard key == schema.key else { return }
        atHand = AtHand(
            EIP712SchemaCache.RecentSchema(key: key, hash: schema.hash, compiled: compiled), isPrivate: true)
    }

    /// Tells the cache about the documents answered at hand since the last report.
    private func report() {
        guard unreported > 0, let atHand else { return }
        cache.noteRepeatedDocuments(atHand.schema, count: unreported)
        unreported = 0
    }
}
