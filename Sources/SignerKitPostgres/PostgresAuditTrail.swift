import EthereumPrimitives
import Foundation
import SignerKit

/// An ``AuditTrail`` in a PostgreSQL database: one row of `signerkit_audit` per call, for every instance of a
/// deployment in one place.
///
/// The columns hold what queries select by (time, request id, call index, client, method, outcome, error
/// code, result hash); `record` holds the call's whole ``CallRecord/json`` object as `jsonb`. A request's rows
/// are one transaction, committed before ``append(_:requestID:at:)`` returns `true`. Text the server cannot
/// store (a NUL character, which a caller may put in a method name) is kept with U+FFFD in its place.
///
/// With a ledger, the same transaction also seals the request's records into `signerkit_ledger` (one chain for
/// every instance; see ``PostgresAuditTrail/receipts(requestID:)``), and signed checkpoints go to
/// `signerkit_ledger_checkpoints`.
public final class PostgresAuditTrail: AuditTrail {
    /// The database.
    public let configuration: PostgresConfiguration
    let database: PostgresDatabase
    /// The ledger, when the trail is one.
    let ledger: PostgresLedger?

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS signerkit_audit (
            id bigserial PRIMARY KEY, time timestamptz NOT NULL, request_id text NOT NULL, call integer NOT NULL,
            client text NOT NULL, method text NOT NULL, outcome text NOT NULL, code bigint, result_hash bytea,
            record jsonb NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS signerkit_audit_time ON signerkit_audit (time)",
        "CREATE INDEX IF NOT EXISTS signerkit_audit_request ON signerkit_audit (request_id)",
    ]

    /// Connects to the database of `configuration` and creates the table when it is missing; with `ledger`,
    /// the ledger's tables too, and reads the records already in the ledger (written by any instance).
    ///
    /// - Throws: ``AuditTrailError`` naming the server and its message (never the password), or the first
    ///   stored ledger record that does not follow on from the one before it.
    public init(configuration: PostgresConfiguration, ledger: AuditLedgerSettings? = nil) async throws(AuditTrailError)
    {
        self.configuration = configuration
        database = PostgresDatabase(configuration: configuration)
        self.ledger = ledger.map(PostgresLedger.init(settings:))
        do {
            try await database.createSchema(Self.schema + (ledger == nil ? [] : PostgresLedger.schema))
            if let opened = self.ledger {
                try await database.transaction { connection throws(PostgresError) in
                    try opened.catchUp(on: connection)
                }
            }
        } catch {
            throw AuditTrailError("audit trail \(error)")
        }
    }

    /// Inserts one row per record of request `requestID`, in one transaction; with a ledger, the records sealed
    /// into it in the same transaction, then the checkpoint that is due, if one is.
    ///
    /// - Returns: whether the rows were committed (the caller must not answer otherwise).
    public func append(_ records: [CallRecord], requestID: String, at time: Date) async -> Bool {
        let rows = records.enumerated().map { index, record in
            Self.parameters(record, call: index, requestID: requestID, time: time)
        }
        let ledger = self.ledger
        let objects =
            ledger == nil || records.isEmpty ? [] : CallRecord.auditObjects(records, requestID: requestID, at: time)
        let sealed: PostgresLedger.Sealed?
        do {
            sealed = try await database.transaction { connection throws(PostgresError) -> PostgresLedger.Sealed? in
                for row in rows {
                    try connection.execute(
                        """
                        INSERT INTO signerkit_audit
                        (time, request_id, call, client, method, outcome, code, result_hash, record)
                        VALUES (to_timestamp($1::double precision), $2, $3::integer, $4, $5, $6, $7::bigint, $8,
                        $9::jsonb)
                        """, row)
                }
                guard let ledger, !objects.isEmpty else { return nil }
                return try ledger.seal(objects, requestID: Self.storable(requestID), on: connection)
            }
        } catch {
            return false
        }
        // Records appended while a checkpoint was signed may make the next one due at once.
        var next = ledger.flatMap { ledger in sealed.flatMap { ledger.stored($0) } }
        while let ledger, let checkpoint = next, (try? await storeCheckpoint(checkpoint, in: ledger)) != nil {
            next = ledger.due(checkpointed: checkpoint.size)
        }
        return true
    }

    /// The statement parameters of one record.
    private static func parameters(_ record: CallRecord, call: Int, requestID: String, time: Date)
        -> [PostgresValue]
    {
        var json = record.json
        let method = storable(json["method"]?.stringValue ?? record.method)
        json["method"] = .string(method)
        let client = storable(record.client)
        json["client"] = .string(client)
        return [
            .text(String(time.timeIntervalSince1970)), .text(storable(requestID)), .text(String(call)),
            .text(client), .text(method), .text(record.outcome),
            record.errorCode.map { .text(String($0)) } ?? .null, record.resultHash.map { .bytes($0.bytes) } ?? .null,
            .text(JSONValue.object(json).serialized),
        ]
    }

    /// `text` with every NUL replaced by U+FFFD (PostgreSQL's `text` and `jsonb` refuse NUL).
    static func storable(_ text: String) -> String {
        guard text.unicodeScalars.contains("\0") else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 }))
    }
}
