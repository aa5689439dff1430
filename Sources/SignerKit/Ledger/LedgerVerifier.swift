import EthereumPrimitives

/// Checks an audit ledger as it was stored, record by record and checkpoint by checkpoint, against the
/// checkpoint key's address: every record's `seq` and `prev` (``LedgerEntry``), every checkpoint's
/// signature, its root against the records before it, and a consistency proof from the checkpoint before it.
/// The first problem is thrown and names the record or checkpoint (``LedgerVerificationError``).
///
/// Feed it in stored order: a log file line by line (a checkpoint line comes after the records it covers), or
/// a database's records by `seq` with each checkpoint after the record that completes its size.
public struct LedgerVerifier: Sendable {
    /// The address whose key signs the checkpoints.
    public let checkpointKey: Address
    private var chain = LedgerChain()
    private var roots: [Int: (root: Bytes32, checkpoint: Int)] = [:]
    private var last: (checkpoint: Checkpoint, index: Int)?

    /// The records checked so far.
    public var records: Int { chain.size }
    /// The checkpoints checked so far.
    public private(set) var checkpoints = 0
    /// The chain of the records checked so far (what a log that opens a verified file appends to).
    public var verifiedChain: LedgerChain { chain }
    /// The checkpoints checked so far, oldest first.
    public private(set) var verifiedCheckpoints: [Checkpoint] = []
    /// The size of the newest checkpoint so far (0 before the first).
    public var coveredRecords: Int { last?.checkpoint.size ?? 0 }

    /// A verifier for checkpoints signed by the key of `checkpointKey`.
    public init(checkpointKey: Address) { self.checkpointKey = checkpointKey }

    /// Checks the next record (its stored text, no newline).
    ///
    /// - Throws: ``LedgerVerificationError/record(_:_:)``.
    public mutating func record(_ text: String) throws(LedgerVerificationError) {
        let index = records
        let entry: LedgerEntry
        do { entry = try LedgerEntry(parsing: text) } catch { throw .record(index, error.description) }
        guard entry.seq == index else {
            throw .record(
                index,
                entry.seq > index
                    ? "seq is \(entry.seq) where \(index) was expected: a record before it was removed"
                    : "seq is \(entry.seq) where \(index) was expected: a record was inserted or records were reordered"
            )
        }
        guard entry.prev == chain.lastLeafHash else {
            throw .record(
                index,
                "prev is not the hash of record \(index - 1): that record was changed, or this one does not belong after it"
            )
        }
        do { try chain.adopt(text) } catch { throw .record(index, error.description) }
    }

    /// Checks the next checkpoint (a signed note's text).
    ///
    /// - Throws: ``LedgerVerificationError/checkpoint(_:_:)``.
    public mutating func checkpoint(_ noteText: String) throws(LedgerVerificationError) {
        let index = checkpoints
        let checkpoint = try Self.verifiedCheckpoint(noteText, key: checkpointKey, index: index)
        try check(checkpoint, index: index)
        checkpoints += 1
    }

    /// Checks a checkpoint held outside the log (the newest one an auditor kept): the log must have every
    /// record it covers, unchanged. It is numbered after the log's own checkpoints.
    ///
    /// - Throws: ``LedgerVerificationError/checkpoint(_:_:)``, e.g. when the log was cut short.
    public mutating func outsideCheckpoint(_ noteText: String) throws(LedgerVerificationError) {
        let index = checkpoints
        let checkpoint = try Self.verifiedCheckpoint(noteText, key: checkpointKey, index: index)
        guard checkpoint.size <= records else {
            throw .checkpoint(
                index,
                "the given checkpoint covers \(checkpoint.size) records but the log holds \(records): it was cut short")
        }
        try check(checkpoint, index: index)
        checkpoints += 1
    }

    /// The checks of a verified checkpoint against the records and checkpoints before it.
    private mutating func check(_ checkpoint: Checkpoint, index: Int) throws(LedgerVerificationError) {
        let size = checkpoint.size
        guard size <= records else {
            throw .checkpoint(index, "it covers \(size) records but only \(records) come before it")
        }
        if let earlier = roots[size], earlier.root != checkpoint.root {
            throw .checkpoint(
                index, "a fork: its root for size \(size) differs from that of checkpoint \(earlier.checkpoint)")
        }
        if let last {
            guard checkpoint.origin == last.checkpoint.origin else {
                throw .checkpoint(index, "its origin differs from that of checkpoint \(last.index)")
            }
            guard size >= last.checkpoint.size else {
                throw .checkpoint(
                    index, "its size \(size) is below the size \(last.checkpoint.size) of checkpoint \(last.index)")
            }
        }
        let root: Bytes32
        do { root = try chain.tree.root(atSize: size) } catch { throw .checkpoint(index, error.description) }
        guard root == checkpoint.root else {
            throw .checkpoint(
                index,
                "its root is not that of records 0..<\(size): a record it covers was changed, removed or inserted")
        }
        if let last {
            // What an auditor holding only the two checkpoints would check: the newer tree extends the older.
            do {
                let proof = try chain.tree.consistencyProof(from: last.checkpoint.size, to: size)
                try proof.verify(oldRoot: last.checkpoint.root, newRoot: checkpoint.root)
            } catch {
                throw .checkpoint(index, "no consistency with checkpoint \(last.index): \(error)")
            }
        }
        roots[size] = (checkpoint.root, index)
        last = (checkpoint, index)
        verifiedCheckpoints.append(checkpoint)
    }

    /// The checkpoint of a signed note whose signature by `key` (named by the checkpoint's origin) verifies.
    public static func verifiedCheckpoint(_ noteText: String, key: Address, index: Int) throws(LedgerVerificationError)
        -> Checkpoint
    {
        let note: SignedNote
        do { note = try SignedNote(parsing: noteText) } catch {
            throw .checkpoint(index, "not a signed note: \(error)")
        }
        let origin: String
        do { origin = try Checkpoint(parsing: note.body).origin } catch {
            throw .checkpoint(index, "not a checkpoint: \(error)")
        }
        do { return try note.verify(keyName: origin, address: key) } catch {
            throw .checkpoint(index, "not signed by the checkpoint key \(key.checksummed): \(error)")
        }
    }
}

/// The first problem ``LedgerVerifier`` found: which record or checkpoint (counted from 0 in stored order)
/// and what is wrong with it.
public enum LedgerVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Record `index` does not hold.
    case record(Int, String)
    /// Checkpoint `index` does not hold.
    case checkpoint(Int, String)

    /// `record I: …` or `checkpoint J: …`.
    public var description: String {
        switch self {
        case .record(let index, let problem): "record \(index): \(problem)"
        case .checkpoint(let index, let problem): "checkpoint \(index): \(problem)"
        }
    }
}
