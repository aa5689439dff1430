import Dispatch
import EthereumPrimitives
import SignerKit
import SignerKitSupport

/// A ``UsageCounterStore`` in an SQLite database (quotas of one signer service that survive restarts); it may
/// share its file with the journal and the idempotency store (a table of its own).
///
/// One row per (counter, subject, window start): the count and the summed amount (32 bytes, big-endian).
/// Every admission is one `BEGIN IMMEDIATE` transaction — read, check, write — so processes sharing the file
/// never admit more than the limit together. Calls run on a serial queue of their own, off the cooperative pool.
public final class SQLiteUsageCounterStore: UsageCounterStore {
    /// The database file.
    public let path: String
    private let database: SQLiteDatabase
    private let queue = DispatchQueue(label: "SignerKit.SQLiteUsageCounterStore")

    static let schema = """
        CREATE TABLE IF NOT EXISTS usage_counters (
            counter BLOB NOT NULL, subject BLOB NOT NULL, window_start INTEGER NOT NULL,
            uses INTEGER NOT NULL, amount BLOB NOT NULL, PRIMARY KEY (counter, subject, window_start));
        """

    /// Opens (creating) the store in the database at `path`.
    ///
    /// - Throws: ``UsageStoreError`` naming the file and SQLite's message.
    public init(path: String) throws(UsageStoreError) {
        self.path = path
        do {
            database = try SQLiteDatabase(path: path)
            try database.execute(Self.schema)
        } catch {
            throw UsageStoreError("usage counter store \(error)")
        }
    }

    /// Adds `charge` when the totals after it stay within `limits`, in one transaction.
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
        try await queue.perform { () throws(UsageStoreError) -> UsageTotals in
            try self.sql { () throws(SQLiteError) -> UsageTotals in
                try self.read(Self.key(counter: counter, subject: subject, windowStart: windowStart))
            }
        }
    }

    /// Reads the row of `charge` (and the sum of the rows it is judged with), lets `decide` pick the row's new
    /// totals (`nil`: unchanged), writes them: one `BEGIN IMMEDIATE` transaction.
    private func change(
        _ charge: UsageCharge,
        _ decide: @escaping @Sendable (_ sum: UsageTotals, _ own: UsageTotals) -> (UsageTotals?, UsageAdmission)
    ) async throws(UsageStoreError) -> UsageAdmission {
        let key = Self.key(counter: charge.counter, subject: charge.subject, windowStart: charge.windowStart)
        return try await queue.perform { () throws(UsageStoreError) -> UsageAdmission in
            try self.sql { () throws(SQLiteError) -> UsageAdmission in
                try self.database.transaction { () throws(SQLiteError) -> UsageAdmission in
                    let own = try self.read(key)
                    let sum = charge.sumsFrom < charge.windowStart ? try self.sum(charge) : own
                    let (next, answer) = decide(sum, own)
                    if let next {
                        try self.database.query(
                            """
                            INSERT OR REPLACE INTO usage_counters (counter, subject, window_start, uses, amount)
                            VALUES (?, ?, ?, ?, ?)
                            """, key + [.real(Double(next.count)), .blob(next.amount.word.bytes)])
                    }
                    return answer
                }
            }
        }
    }

    private func read(_ key: [SQLiteValue]) throws(SQLiteError) -> UsageTotals {
        var totals = UsageTotals.zero
        try database.query(
            "SELECT uses, amount FROM usage_counters WHERE counter = ? AND subject = ? AND window_start = ?", key
        ) { row in
            totals = UsageTotals(
                count: UInt64(max(0, row.integer(0))),
                amount: row.blob(1).flatMap { Bytes32($0) }.map { UInt256(word: $0) } ?? .zero)
        }
        return totals
    }

    /// The sum of the rows of `charge`'s counter and subject from its `sumsFrom` to its window.
    private func sum(_ charge: UsageCharge) throws(SQLiteError) -> UsageTotals {
        var sum = UsageTotals.zero
        try database.query(
            """
            SELECT uses, amount FROM usage_counters
            WHERE counter = ? AND subject = ? AND window_start BETWEEN ? AND ?
            """,
            [
                .blob(Array(charge.counter.utf8)), .blob(Array(charge.subject.utf8)), .real(Double(charge.sumsFrom)),
                .real(Double(charge.windowStart)),
            ]
        ) { row in
            sum = sum.merging(
                UsageTotals(
                    count: UInt64(max(0, row.integer(0))),
                    amount: row.blob(1).flatMap { Bytes32($0) }.map { UInt256(word: $0) } ?? .zero))
        }
        return sum
    }

    private static func key(counter: String, subject: String, windowStart: Int64) -> [SQLiteValue] {
        [.blob(Array(counter.utf8)), .blob(Array(subject.utf8)), .real(Double(windowStart))]
    }

    private func sql<T>(_ body: () throws(SQLiteError) -> T) throws(UsageStoreError) -> T {
        do { return try body() } catch { throw UsageStoreError("usage counter store \(error)") }
    }
}
