import EthereumPrimitives
import SignerKit

extension PostgresTransactionJournal {
    /// Inserts `batch` unless its id is taken (`ON CONFLICT DO NOTHING` on the primary key), then reads the
    /// row under the id, in one transaction: instances sharing the database agree on the first batch.
    public func claimCallBatch(_ batch: CallBatchRecord) async throws(JournalError) -> CallBatchRecord {
        let recorded = try await sql { () async throws(PostgresError) -> CallBatchRecord? in
            try await database.transaction { connection throws(PostgresError) -> CallBatchRecord? in
                try connection.execute(
                    """
                    INSERT INTO signerkit_call_batches (id, digest, chain, account, calls, execution, delegate)
                    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING
                    """,
                    [
                        .text(batch.id), .bytes(batch.digest.bytes), .text(batch.chain.description),
                        .text(batch.account.lowercased), .text(String(batch.callCount)), .text(batch.executionName),
                        batch.delegate.map { .text($0.lowercased) } ?? .null,
                    ])
                return try Self.readCallBatch(id: batch.id, on: connection)
            }
        }
        guard let recorded else {
            throw .io("transaction journal \(configuration.endpoint): the call batch was not stored")
        }
        return recorded
    }

    /// The call batch recorded under `id`.
    public func callBatch(id: String) async throws(JournalError) -> CallBatchRecord? {
        try await sql { () async throws(PostgresError) -> CallBatchRecord? in
            try await database.transaction { connection throws(PostgresError) -> CallBatchRecord? in
                try Self.readCallBatch(id: id, on: connection)
            }
        }
    }

    /// The row under `id` as a record; a row that does not decode is an error, never a missing batch.
    private static func readCallBatch(id: String, on connection: PostgresConnection) throws(PostgresError)
        -> CallBatchRecord?
    {
        let rows = try connection.query(
            "SELECT id, digest, chain, account, calls, execution, delegate FROM signerkit_call_batches WHERE id = $1",
            [.text(id)])
        guard let row = rows.first else { return nil }
        guard let id = row.text(0), let digest = row.bytes(1).flatMap({ Bytes32($0) }),
            let chain = row.text(2).flatMap({ try? ChainID($0) }),
            let account = row.text(3).flatMap({ try? Address($0) }), let calls = row.text(4).flatMap({ Int($0) }),
            let execution = row.text(5),
            let record = CallBatchRecord(
                id: id, digest: digest, chain: chain, account: account, callCount: calls, executionName: execution,
                delegate: row.text(6).flatMap { try? Address($0) })
        else {
            throw PostgresError(endpoint: connection.endpoint, message: "a signerkit_call_batches row does not decode")
        }
        return record
    }
}
