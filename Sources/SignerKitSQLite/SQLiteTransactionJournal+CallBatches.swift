import EthereumPrimitives
import SignerKit

extension SQLiteTransactionJournal {
    /// Inserts `batch` unless its id is taken (`INSERT OR IGNORE`), then reads the row under the id, in one
    /// `BEGIN IMMEDIATE` transaction: processes sharing the file agree on the first batch.
    public func claimCallBatch(_ batch: CallBatchRecord) async throws(JournalError) -> CallBatchRecord {
        try await queue.perform { () throws(JournalError) in
            let recorded = try self.sql { () throws(SQLiteError) -> CallBatchRecord? in
                try self.database.transaction { () throws(SQLiteError) -> CallBatchRecord? in
                    try self.database.query(
                        """
                        INSERT OR IGNORE INTO call_batches (id, digest, chain, account, calls, execution, delegate)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(batch.id), .blob(batch.digest.bytes), .text(batch.chain.description),
                            .text(batch.account.lowercased), .text(String(batch.callCount)), .text(batch.executionName),
                            batch.delegate.map { .text($0.lowercased) } ?? .null,
                        ])
                    return try self.readCallBatch(id: batch.id)
                }
            }
            guard let recorded else { throw .io("transaction journal \(self.path): the call batch was not stored") }
            return recorded
        }
    }

    /// The call batch recorded under `id`.
    public func callBatch(id: String) async throws(JournalError) -> CallBatchRecord? {
        try await queue.perform { () throws(JournalError) in
            try self.sql { () throws(SQLiteError) -> CallBatchRecord? in try self.readCallBatch(id: id) }
        }
    }

    /// The row under `id` as a record; a row that does not decode is an error, never a missing batch.
    private func readCallBatch(id: String) throws(SQLiteError) -> CallBatchRecord? {
        var found: CallBatchRecord?
        var rows = 0
        try database.query(
            "SELECT id, digest, chain, account, calls, execution, delegate FROM call_batches WHERE id = ?", [.text(id)]
        ) { row in
            rows += 1
            guard let id = row.text(0), let digest = row.blob(1).flatMap({ Bytes32($0) }),
                let chain = row.text(2).flatMap({ try? ChainID($0) }),
                let account = row.text(3).flatMap({ try? Address($0) }), let calls = row.text(4).flatMap({ Int($0) }),
                let execution = row.text(5)
            else { return }
            let delegate = row.text(6).flatMap { try? Address($0) }
            found = CallBatchRecord(
                id: id, digest: digest, chain: chain, account: account, callCount: calls, executionName: execution,
                delegate: delegate)
        }
        if rows > 0 && found == nil { throw SQLiteError(path: path, message: "a call_batches row does not decode") }
        return found
    }
}
