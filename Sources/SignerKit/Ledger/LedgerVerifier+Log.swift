import EthereumPrimitives

extension LedgerVerifier {
    /// What a whole log held when it verified.
    public struct Summary: Sendable, Equatable {
        /// The records.
        public let records: Int
        /// The checkpoints (with the outside one, when given).
        public let checkpoints: Int
        /// The records the newest checkpoint covers.
        public let coveredRecords: Int

        /// A summary of these counts.
        public init(records: Int, checkpoints: Int, coveredRecords: Int) {
            self.records = records
            self.checkpoints = checkpoints
            self.coveredRecords = coveredRecords
        }
    }

    /// Verifies a log file's bytes (``LedgerLogFile``) and, when given, a checkpoint held outside it.
    ///
    /// - Throws: ``LedgerVerificationError`` naming the first record or checkpoint that does not hold.
    public static func verify(log bytes: [UInt8], key: Address, outsideCheckpoint: String? = nil)
        throws(LedgerVerificationError) -> Summary
    {
        var verifier = LedgerVerifier(checkpointKey: key)
        for located in LedgerLogFile.lines(bytes) {
            switch located.line {
            case .record(let text): try verifier.record(text)
            case .checkpoint(let note): try verifier.checkpoint(note)
            case .torn: continue
            }
        }
        if let outsideCheckpoint { try verifier.outsideCheckpoint(outsideCheckpoint) }
        return verifier.summary
    }

    /// The counts so far.
    public var summary: Summary {
        Summary(records: records, checkpoints: checkpoints, coveredRecords: coveredRecords)
    }
}

extension LedgerVerifier {
    /// Verifies a ledger kept in a database: its records in `seq` order and its checkpoints in the order they
    /// were stored (by size), each checked after the record that completes its size.
    ///
    /// - Throws: ``LedgerVerificationError`` naming the first record or checkpoint that does not hold.
    public static func verify(
        records: [String], checkpoints: [String], key: Address, outsideCheckpoint: String? = nil
    ) throws(LedgerVerificationError) -> Summary {
        var verifier = LedgerVerifier(checkpointKey: key)
        var pending = checkpoints[...]
        func checkpointsDue(atSize size: Int) throws(LedgerVerificationError) {
            while let note = pending.first {
                // A checkpoint whose size cannot be read is checked at once (and fails, naming it).
                let checkpointSize = (try? SignedNote(parsing: note)).flatMap { try? Checkpoint(parsing: $0.body) }?
                    .size
                guard checkpointSize.map({ $0 <= size }) ?? true else { return }
                pending.removeFirst()
                try verifier.checkpoint(note)
            }
        }
        try checkpointsDue(atSize: 0)
        for text in records {
            try verifier.record(text)
            try checkpointsDue(atSize: verifier.records)
        }
        for note in pending { try verifier.checkpoint(note) }
        if let outsideCheckpoint { try verifier.outsideCheckpoint(outsideCheckpoint) }
        return verifier.summary
    }
}
