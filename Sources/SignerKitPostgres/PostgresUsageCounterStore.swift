import EthereumPrimitives
import SignerKit
import SignerKitSupport

/// A ``UsageCounterStore`` in a PostgreSQL database, so several signer service instances share one quota.
///
/// One row of `signerkit_usage` per (counter, subject, window start): the count and the summed amount
/// (32 bytes, big-endian). An admission inserts the row if it is missing, then locks it (`FOR UPDATE`),
/// checks and writes in the same transaction: two instances racing for the last unit admit exactly one.
public final class PostgresUsageCounterStore: UsageCounterStore {
    /// The database.
    public let configuration: PostgresConfiguration
    private let database: PostgresDatabase

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS signerkit_usage (
            counter bytea NOT NULL, subject bytea NOT NULL, window_start bigint NOT NULL, uses bigint NOT NULL,
            amount bytea NOT NULL, PRIMARY KEY (counter, subject, window_start))
        """
    ]

    /// Connects to the database of `configuration` and creates the store's table when it is missing.
    ///
    /// - Throws: ``UsageStoreError`` naming the server and its message (never the password).
    public init(configuration: PostgresConfiguration) async throws(UsageStoreError) {
        self.configuration = configuration
        database = PostgresDatabase(configuration: configuration)
        try await sql { () async throws(PostgresError) in try await database.createSchema(Self.schema) }
    }

    /// Adds `charge` when the totals after it stay within `limits`, under the row's lock.
    public func admit(_ charge: UsageCharge, within limits: UsageLimits) async throws(UsageStoreError)
        -> UsageAdmission
    {
        try await change(charge) { sum, own in charge.admission(at: sum, own: own, within: limits) }
    }

    /// Takes `charge` back, never below zero.
    public func refund(_ charge: UsageCharge) async throws(UsageStoreError) {
        _ = try await change(charge) { _, own in (own.removing(charge), .exceeded(own)) }
    }

    /// The row's totals (zero when it has none).
    public func totals(counter: String, subject: String, windowStart: Int64) async throws(UsageStoreError)
        -> UsageTotals
    {
        let key = Self.key(counter: counter, subject: subject, windowStart: windowStart)
        return try await sql { () async throws(PostgresError) -> UsageTotals in
            try await database.transaction { connection throws(PostgresError) -> UsageTotals in
                Self.totals(
                    try connection.query(
                        "SELECT uses::text, amount FROM signerkit_usage WHERE counter = $1 AND subject = $2 "
                            + "AND window_start = $3::bigint", key))
            }
        }
    }

    /// Locks the row of `charge` (inserting it at zero first; for a rolling window, every row of its counter and
    /// subject first, under an advisory lock of the subject, so admissions in neighbouring buckets are judged one
    /// after the other), lets `decide` pick its new totals (`nil`: unchanged) and writes them, in one transaction.
    private func change(
        _ charge: UsageCharge,
        _ decide: @escaping @Sendable (_ sum: UsageTotals, _ own: UsageTotals) -> (UsageTotals?, UsageAdmission)
    ) async throws(UsageStoreError) -> UsageAdmission {
        let key = Self.key(counter: charge.counter, subject: charge.subject, windowStart: charge.windowStart)
        return try await sql { () async throws(PostgresError) -> UsageAdmission in
            try await database.transaction { connection throws(PostgresError) -> UsageAdmission in
                try connection.execute(
                    """
                    INSERT INTO signerkit_usage (counter, subject, window_start, uses, amount)
                    VALUES ($1, $2, $3::bigint, 0, $4) ON CONFLICT DO NOTHING
                    """, key + [.bytes(UInt256.zero.word.bytes)])
                let current = Self.totals(
                    try connection.query(
                        """
                        SELECT uses::text, amount FROM signerkit_usage
                        WHERE counter = $1 AND subject = $2 AND window_start = $3::bigint FOR UPDATE
                        """, key))
                var sum = current
                if charge.sumsFrom < charge.windowStart {
                    try connection.execute(
                        "SELECT pg_advisory_xact_lock(hashtextextended(encode($1, 'hex') || ':' || encode($2, 'hex'), 0))",
                        [key[0], key[1]])
                    sum = try connection.query(
                        """
                        SELECT uses::text, amount FROM signerkit_usage WHERE counter = $1 AND subject = $2
                        AND window_start BETWEEN $3::bigint AND $4::bigint
                        """, [key[0], key[1], .text(String(charge.sumsFrom)), key[2]]
                    ).reduce(UsageTotals.zero) { $0.merging(Self.totals([$1])) }
                }
                let (next, answer) = decide(sum, current)
                if let next {
                    try connection.execute(
                        """
                        UPDATE signerkit_usage SET uses = $4::bigint, amount = $5
                        WHERE counter = $1 AND subject = $2 AND window_start = $3::bigint
                        """, key + [.text(String(next.count)), .bytes(next.amount.word.bytes)])
                }
                return answer
            }
        }
    }

    private static func totals(_ rows: [PostgresRow]) -> UsageTotals {
        guard let row = rows.first else { return .zero }
        return UsageTotals(
            count: row.text(0).flatMap { UInt64($0) } ?? 0,
            amount: row.bytes(1).flatMap { Bytes32($0) }.map { UInt256(word: $0) } ?? .zero)
    }

    private static func key(counter: String, subject: String, windowStart: Int64) -> [PostgresValue] {
        [.bytes(Array(counter.utf8)), .bytes(Array(subject.utf8)), .text(String(windowStart))]
    }

    private func sql<T: Sendable>(_ body: () async throws(PostgresError) -> T) async throws(UsageStoreError) -> T {
        do { return try await body() } catch { throw UsageStoreError("usage counter store \(error)") }
    }
}
