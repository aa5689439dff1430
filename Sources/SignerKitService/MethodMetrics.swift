import Synchronization

/// One count that many threads add to without a lock.
final class RelaxedCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Adds `amount`.
    func add(_ amount: Int = 1) { count.wrappingAdd(amount, ordering: .relaxed) }

    /// The count now.
    var value: Int { count.load(ordering: .relaxed) }
}

/// The calls of one method: successes and the latency histogram as relaxed atomics, error outcomes (rarer,
/// by code) under a lock of their own.
final class MethodMetrics: Sendable {
    /// Slots of the histogram: one per bound of ``ServiceMetrics/buckets``, then +Inf.
    static let slotCount = 14
    private let succeeded = Atomic<Int>(0)
    private let slots: InlineArray<14, Atomic<Int>> = InlineArray { _ in Atomic(0) }
    private let nanoseconds = Atomic<Int>(0)
    private let failed = Mutex<[Int: Int]>([:])

    /// What one method's counters hold at one moment.
    struct Snapshot {
        /// Calls that succeeded.
        var succeeded: Int
        /// Calls that failed, by JSON-RPC error code.
        var failed: [Int: Int]
        /// Calls per histogram slot (one per bound of ``ServiceMetrics/buckets``, then +Inf).
        var slots: [Int]
        /// The calls' total duration, in seconds.
        var seconds: Double
    }

    init() { precondition(ServiceMetrics.buckets.count + 1 == Self.slotCount, "one slot per bucket, then +Inf") }

    /// Counts one call that lasted `duration` and failed with `errorCode` (`nil`: succeeded).
    func record(_ duration: Duration, errorCode: Int?) {
        if let errorCode {
            failed.withLock { $0[errorCode, default: 0] += 1 }
        } else {
            succeeded.wrappingAdd(1, ordering: .relaxed)
        }
        let (whole, attoseconds) = duration.components
        let nanoseconds = Int(clamping: whole) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        let seconds = Double(nanoseconds) / 1e9
        slots[ServiceMetrics.buckets.firstIndex { seconds <= $0 } ?? ServiceMetrics.buckets.count]
            .wrappingAdd(1, ordering: .relaxed)
        self.nanoseconds.wrappingAdd(nanoseconds, ordering: .relaxed)
    }

    /// The counts now (each read on its own: a call being recorded may be in some and not yet in others).
    var snapshot: Snapshot {
        Snapshot(
            succeeded: succeeded.load(ordering: .relaxed), failed: failed.withLock { $0 },
            slots: (0..<Self.slotCount).map { slots[$0].load(ordering: .relaxed) },
            seconds: Double(nanoseconds.load(ordering: .relaxed)) / 1e9)
    }
}
