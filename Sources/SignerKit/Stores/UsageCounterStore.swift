import EthereumPrimitives
import Synchronization

/// Counters that limit money over time (a sponsor's quota per sender per day): each row counts uses and sums
/// an amount for one subject in one window (a fixed window, or one bucket of a rolling window), and an admission
/// adds to its row only when every total — the row's, or for a rolling window the sum of the subject's rows from
/// ``UsageCharge/sumsFrom`` on — stays within its limit: read, checked and written in one store transaction, so
/// two processes sharing the store racing for the last unit admit exactly one. SQLite, PostgreSQL and memory implementations keep one
/// contract (``MemoryUsageCounterStore``; `SQLiteUsageCounterStore`, `PostgresUsageCounterStore`).
public protocol UsageCounterStore: Sendable {
    /// Adds `charge` to its row when the totals after it — summed over the rows of its counter and subject from
    /// ``UsageCharge/sumsFrom`` to its window — stay within `limits`, in one transaction.
    ///
    /// - Returns: ``UsageAdmission/admitted(_:)`` with the totals after the charge, or
    ///   ``UsageAdmission/exceeded(_:)`` with the totals as they are (nothing added).
    func admit(_ charge: UsageCharge, within limits: UsageLimits) async throws(UsageStoreError) -> UsageAdmission

    /// Takes an admitted `charge` back (its signature was never given out), never below zero.
    func refund(_ charge: UsageCharge) async throws(UsageStoreError)

    /// The totals of `subject` under `counter` in the window starting at `windowStart`.
    func totals(counter: String, subject: String, windowStart: Int64) async throws(UsageStoreError) -> UsageTotals
}

/// One use to count: which counter (`ronin-sponsor:eip155:2020:0xPayer`), whose (the sender), in which window,
/// and how much it adds.
public struct UsageCharge: Sendable, Hashable {
    /// The counter's name; limits of different rules never share a row.
    public let counter: String
    /// Who the use is counted for.
    public let subject: String
    /// The start of the window, in Unix seconds.
    public let windowStart: Int64
    /// The amount it adds (wei of gas × fee cap, say); the count always grows by one.
    public let amount: UInt256
    /// The earliest window start whose row counts with this charge's (a rolling window: the buckets it spans);
    /// ``windowStart`` for a fixed window.
    public let sumsFrom: Int64

    /// A charge of one use and `amount`, judged against the sum of the rows from `sumsFrom` (default: its own
    /// window alone).
    public init(counter: String, subject: String, windowStart: Int64, amount: UInt256, sumsFrom: Int64? = nil) {
        self.counter = counter
        self.subject = subject
        self.windowStart = windowStart
        self.amount = amount
        self.sumsFrom = min(sumsFrom ?? windowStart, windowStart)
    }
}

/// The limits of one window; `nil` is no limit.
public struct UsageLimits: Sendable, Hashable {
    /// The most uses.
    public let maximumCount: UInt64?
    /// The largest sum of amounts.
    public let maximumAmount: UInt256?

    /// Limits of `maximumCount` uses and `maximumAmount` in all.
    public init(maximumCount: UInt64?, maximumAmount: UInt256?) {
        self.maximumCount = maximumCount
        self.maximumAmount = maximumAmount
    }

    /// Whether `totals` stay within the limits.
    public func allow(_ totals: UsageTotals) -> Bool {
        (maximumCount.map { totals.count <= $0 } ?? true) && (maximumAmount.map { totals.amount <= $0 } ?? true)
    }
}

/// The totals of one row.
public struct UsageTotals: Sendable, Hashable {
    /// Uses counted.
    public var count: UInt64
    /// Their amounts, summed.
    public var amount: UInt256

    /// Totals of `count` uses and `amount`.
    public init(count: UInt64, amount: UInt256) {
        self.count = count
        self.amount = amount
    }

    /// No use yet.
    public static let zero = UsageTotals(count: 0, amount: .zero)

    /// The totals with `charge` added (`nil` when a total would overflow: never admitted).
    public func adding(_ charge: UsageCharge) -> UsageTotals? {
        guard count < .max, let amount = amount.adding(charge.amount) else { return nil }
        return UsageTotals(count: count + 1, amount: amount)
    }

    /// The totals with `charge` taken back, never below zero.
    public func removing(_ charge: UsageCharge) -> UsageTotals {
        let (left, below) = amount.subtractingReportingOverflow(charge.amount)
        return UsageTotals(count: count > 0 ? count - 1 : 0, amount: below ? .zero : left)
    }
}

extension UsageCharge {
    /// What admitting this charge to a row standing at `current` decides, the one rule every store applies
    /// inside its transaction: the row's new totals (`nil`: unchanged) and the answer.
    public func admission(at current: UsageTotals, within limits: UsageLimits) -> (
        next: UsageTotals?, answer: UsageAdmission
    ) {
        admission(at: current, own: current, within: limits)
    }

    /// What admitting this charge decides when the rows it is judged with sum to `sum` and its own row stands
    /// at `own` (a rolling window): the own row's new totals (`nil`: unchanged) and the answer (with the sums).
    public func admission(at sum: UsageTotals, own: UsageTotals, within limits: UsageLimits) -> (
        next: UsageTotals?, answer: UsageAdmission
    ) {
        guard let after = sum.adding(self), limits.allow(after), let next = own.adding(self) else {
            return (nil, .exceeded(sum))
        }
        return (next, .admitted(after))
    }
}

extension UsageTotals {
    /// Both totals added (saturating).
    public func merging(_ other: UsageTotals) -> UsageTotals {
        UsageTotals(
            count: count.addingReportingOverflow(other.count).overflow ? .max : count + other.count,
            amount: amount.adding(other.amount) ?? .max)
    }
}

/// What ``UsageCounterStore/admit(_:within:)`` decided.
public enum UsageAdmission: Sendable, Hashable {
    /// Counted; the totals after it.
    case admitted(UsageTotals)
    /// Refused; the totals as they are.
    case exceeded(UsageTotals)
}

/// Why a usage counter store could not answer: the store and its cause.
public struct UsageStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store and the cause.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// A ``UsageCounterStore`` in this process's memory: for one process without a database (its counts end with
/// it). Admissions are serialised by a lock.
public final class MemoryUsageCounterStore: UsageCounterStore {
    private struct Row: Hashable {
        let counter: String
        let subject: String
        let windowStart: Int64
    }

    private let rows = Mutex<[Row: UsageTotals]>([:])

    /// An empty store.
    public init() {}

    /// Adds `charge` when the totals after it stay within `limits`.
    public func admit(_ charge: UsageCharge, within limits: UsageLimits) async throws(UsageStoreError)
        -> UsageAdmission
    {
        let row = Row(counter: charge.counter, subject: charge.subject, windowStart: charge.windowStart)
        return rows.withLock { rows in
            var sum = rows[row] ?? .zero
            if charge.sumsFrom < charge.windowStart {
                sum = rows.filter {
                    $0.key.counter == charge.counter && $0.key.subject == charge.subject
                        && (charge.sumsFrom...charge.windowStart).contains($0.key.windowStart)
                }.values.reduce(UsageTotals.zero) { $0.merging($1) }
            }
            let (next, answer) = charge.admission(at: sum, own: rows[row] ?? .zero, within: limits)
            if let next { rows[row] = next }
            return answer
        }
    }

    /// Takes `charge` back.
    public func refund(_ charge: UsageCharge) async throws(UsageStoreError) {
        let row = Row(counter: charge.counter, subject: charge.subject, windowStart: charge.windowStart)
        rows.withLock { rows in rows[row] = (rows[row] ?? .zero).removing(charge) }
    }

    /// The row's totals.
    public func totals(counter: String, subject: String, windowStart: Int64) async throws(UsageStoreError)
        -> UsageTotals
    {
        rows.withLock { $0[Row(counter: counter, subject: subject, windowStart: windowStart)] ?? .zero }
    }
}
