import EthereumPrimitives

/// The writing side of an audit ledger: the Merkle tree of the records stored so far and the hash of the
/// last one, so the next record is sealed with the right `seq` and `prev` (``LedgerEntry``) and a checkpoint
/// of any size the tree has had can be made.
///
/// Whoever appends holds the store's lock while it seals and stores (the file log's mutex, a database's
/// lock), so records get consecutive leaf indices in the order they are stored.
public struct LedgerChain: Sendable {
    /// The tree of every record stored so far.
    public private(set) var tree = MerkleTree()

    /// An empty ledger.
    public init() {}

    /// The number of records.
    public var size: Int { tree.size }

    /// The leaf hash the next record's `prev` holds.
    public var lastLeafHash: Bytes32 { tree.leafHashes.last ?? LedgerEntry.noPrevious }

    /// Seals `records` as the next leaves, in order, without adding them: store their texts, then
    /// ``append(_:)`` them (a failed write leaves the chain as it was).
    public func sealed(_ records: [JSONObject]) -> [LedgerEntry] {
        sealed(texts: records.map { JSONValue.object($0).serialized })
    }

    /// ``sealed(_:)`` of records already serialized (JSON objects without `seq` and `prev`).
    public func sealed(texts: [String]) -> [LedgerEntry] {
        var prev = lastLeafHash
        return texts.enumerated().map { offset, text in
            let entry = LedgerEntry(seq: size + offset, prev: prev, recordText: text)
            prev = entry.leafHash
            return entry
        }
    }

    /// Adds entries made by ``sealed(_:)`` once they are stored.
    public mutating func append(_ entries: [LedgerEntry]) {
        for entry in entries {
            precondition(entry.seq == size, "ledger entries are appended in the order they were sealed")
            tree.append(leafHash: entry.leafHash)
        }
    }

    /// Adds a record that is already stored (read back when a log is opened, or appended by another instance).
    ///
    /// - Throws: ``LedgerEntryError`` when the line is not a record, or its `seq` and `prev` do not follow on
    ///   from the records before it (the store was changed: ``LedgerVerifier`` says where).
    public mutating func adopt(_ text: String) throws(LedgerChainError) {
        let entry: LedgerEntry
        do { entry = try LedgerEntry(parsing: text) } catch { throw .notARecord(index: size, error) }
        guard entry.seq == size, entry.prev == lastLeafHash else { throw .outOfSequence(index: size) }
        tree.append(leafHash: entry.leafHash)
    }

    /// The checkpoint of the tree at `treeSize` records (the current size when `nil`).
    ///
    /// - Throws: ``LedgerChainError/checkpoint(_:)`` for an invalid origin or time, or a size the tree has not had.
    public func checkpoint(origin: String, treeSize: Int? = nil, time: Int64) throws(LedgerChainError) -> Checkpoint {
        let size = treeSize ?? self.size
        let root: Bytes32
        do { root = try tree.root(atSize: size) } catch { throw .proof(error) }
        do { return try Checkpoint(origin: origin, size: size, root: root, time: time) } catch {
            throw .checkpoint(error)
        }
    }
}

/// Why a ledger could not take a stored record or make a checkpoint.
public enum LedgerChainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stored line at `index` is not a ledger record.
    case notARecord(index: Int, LedgerEntryError)
    /// The stored record at `index` does not carry `seq` = `index` and the previous record's hash.
    case outOfSequence(index: Int)
    /// The checkpoint's origin or time is invalid.
    case checkpoint(CheckpointError)
    /// A tree size or leaf the ledger does not have.
    case proof(MerkleProofError)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notARecord(let index, let error): "record \(index): \(error)"
        case .outOfSequence(let index):
            "record \(index): its seq or prev does not follow on from the record before it (run `signerkit audit verify`)"
        case .checkpoint(let error): error.description
        case .proof(let error): error.description
        }
    }
}
