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

    /// The `seq` from which a store's rows are read to catch up (``adopt(stored:complete:)``): the chain's last record,
    /// which is read again to see it is still there, and every record after it.
    public var catchUpFrom: Int { max(0, size - 1) }

    /// Adds the records another process stored after this chain's last, once it has seen that the last one is
    /// still stored as it was: `rows` are the store's `(seq, text)` in order, read from ``catchUpFrom`` on (rows
    /// before the chain's last, which it took meanwhile, are passed over). A store whose newest rows were deleted
    /// or changed under a running service stops its appends here — no record is sealed after a history that is
    /// no longer there — instead of being found only by ``LedgerVerifier``.
    ///
    /// - Parameters:
    ///   - rows: the store's `(seq, text)` rows from ``catchUpFrom`` (as it was when they were read) on, by `seq`.
    ///   - complete: the rows were read under the store's write lock, after every record this chain
    ///     holds was committed, so the chain's last must be among them; when `false` (a read that may predate
    ///     records this process added since), a missing last record is not an error.
    /// - Throws: ``LedgerChainError/changedUnderneath(index:)`` when the chain's last record is missing or
    ///   differs; ``adopt(_:)``'s errors for the records after it.
    public mutating func adopt(stored rows: [(seq: Int, text: String)], complete: Bool) throws(LedgerChainError) {
        var rest = rows.drop { $0.seq < size - 1 }
        if size > 0, complete || rest.first?.seq == size - 1 {
            // The leaf hash of the stored text itself: the chain took that record as exactly these bytes.
            guard let first = rest.first, first.seq == size - 1,
                MerkleHash.leaf(Array(first.text.utf8)) == tree.leafHashes.last
            else { throw .changedUnderneath(index: size - 1) }
            rest = rest.dropFirst()
        }
        for row in rest { try adopt(row.text) }
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
    /// The record at `index`, the newest this process knew, is no longer stored as it was (deleted or changed).
    case changedUnderneath(index: Int)
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
        case .changedUnderneath(let index):
            "record \(index) is no longer stored as it was written: the ledger was changed under the service (run "
                + "`signerkit audit verify`)"
        case .checkpoint(let error): error.description
        case .proof(let error): error.description
        }
    }
}
