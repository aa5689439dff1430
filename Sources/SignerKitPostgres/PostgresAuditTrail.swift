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
public final class PostgresAuditTrail: AuditTrail {
    /// The database.
    public let configuration: PostgresConfiguration
    private let database: PostgresDatabase

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

    /// Connects to the database of `configuration` and creates the table when it is missing.
    ///
    /// - Throws: ``AuditTrailError`` naming the server and its message (never the password).
    public init(configuration: PostgresConfiguration) async throws(AuditTrailError) {
        self.configuration = configuration
        database = PostgresDatabase(configuration: configuration)
        do { try await database.createSchema(Self.schema) } catch {
            throw AuditTrailError("audit trail \(error)")
        }
    }

    /// Inserts one row per record of request `requestID`, in one transaction.
    ///
    /// - Returns: whether the rows were committed (the caller must not answer otherwise).
    public func append(_ records: [CallRecord], requestID: String, at time: Date) async -> Bool {
        let rows = records.enumerated().map { index, record in
            Self.parameters(record, call: index, requestID: requestID, time: time)
        }
        do {
            try await database.transaction { connection throws(PostgresError) in
                for row in rows {
                    try connection.execute(
                        """
                        INSERT INTO signerkit_audit
                        (time, request_id, call, client, method, outcome, code, result_hash, record)
                        VALUES (to_timestamp($1::double precision), $2, $3::integer, $4, $5, $6, $7::bigint, $8,
                        $9::jsonb)
                        """, row)
                }
            }
            return true
        } catch {
            return false
        }
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
    private static func storable(_ text: String) -> String {
        guard text.unicodeScalars.contains("\0") else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 }))
    }
}
