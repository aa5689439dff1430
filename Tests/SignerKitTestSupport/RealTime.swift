import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tests' one way to wait in real time, for what the operating system does at its own pace: a child
/// process writing its first line, a server accepting a connection, a request reaching a proxy, a lease
/// measured by a database's clock. Never for SignerKit's own waits: those run on a ``ManualClock``. Each
/// poll is bounded only against a hang (the bound is not what a test checks): on a loaded machine the
/// condition comes late, never false.
///
/// A bound is read on ``Progress``, not on the wall clock: while Swift's cooperative pool is busy (the whole
/// suite's tests start at once on two threads) what a test waits for is late by as much, so the bound
/// stretches with it; on a free machine it passes as real time does, so a hang still ends.
public enum RealTime {
    /// How often a condition is looked at.
    public static let interval: Duration = .milliseconds(20)

    /// How far the machine has come: a task on the cooperative pool that sleeps ``interval`` and counts. Its
    /// wake-up waits its turn like every job a test waits for, so it counts slower exactly when those are
    /// late, and never faster than real time.
    public enum Progress {
        private static let ticks = Atomic<Int>(0)
        private static let beating: Void = {
            Task.detached(priority: .medium) {
                while true {
                    // A real sleep: the pool's own pace is what it measures.
                    try? await Task.sleep(for: interval)
                    ticks.add(1, ordering: .relaxed)
                }
            }
        }()

        /// The ticks counted so far.
        public static var now: Int {
            _ = beating
            return ticks.load(ordering: .relaxed)
        }
    }

    /// A hang bound: `limit` of ``Progress`` (and at least `limit` of real time) from when it was made.
    public struct Bound: Sendable {
        private let ticks: Int
        private let wall: ContinuousClock.Instant
        private let limit: Duration

        /// A bound `limit` from now.
        public init(_ limit: Duration) {
            ticks = Progress.now
            wall = .now
            self.limit = limit
        }

        /// Whether the bound has passed.
        public var hasPassed: Bool {
            let progressed = interval * (Progress.now - ticks)
            return ContinuousClock.now - wall >= limit && progressed >= limit
        }
    }

    /// Checks `condition` until it holds (`true`) or the ``Bound`` `limit` has passed (`false`).
    public static func poll(within limit: Duration, until condition: () async throws -> Bool) async rethrows -> Bool {
        try await first(within: limit) { try await condition() ? true : nil } ?? false
    }

    /// The first non-`nil` value of `probe`, looked at until the ``Bound`` `limit` has passed (`nil` then).
    public static func first<T>(within limit: Duration, _ probe: () async throws -> T?) async rethrows -> T? {
        let bound = Bound(limit)
        while true {
            if let value = try await probe() { return value }
            guard !bound.hasPassed else { return nil }
            // A real sleep: what is polled (the OS, a child process, a socket) tells nobody when it changes.
            try? await Task.sleep(for: interval)
        }
    }

    /// The value of `task` once it has ended, or `nil` when it has not within the ``Bound`` `limit` (the bound
    /// only ends a hang: a test of "this never hangs" fails at the bound instead of waiting for the run's
    /// timeout).
    public static func value<T: Sendable>(of task: Task<T, Never>, within limit: Duration) async -> T? {
        let ended = Arrivals<T>()
        Task { ended.append(await task.value) }
        return await first(within: limit) { ended.all.first }
    }

    /// ``poll(within:until:)`` for a plain thread (never Swift's cooperative pool): blocks it between looks.
    public static func pollBlocking(within limit: Duration, until condition: () -> Bool) -> Bool {
        let bound = Bound(limit)
        while true {
            if condition() { return true }
            guard !bound.hasPassed else { return false }
            let (seconds, attoseconds) = interval.components
            // A real sleep, as in first(within:_:), on a thread that is not Swift's cooperative pool.
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
    }
}
