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
public enum RealTime {
    /// How often a condition is looked at.
    public static let interval: Duration = .milliseconds(20)

    /// Checks `condition` until it holds (`true`) or `limit` has passed (`false`).
    public static func poll(within limit: Duration, until condition: () async throws -> Bool) async rethrows -> Bool {
        try await first(within: limit) { try await condition() ? true : nil } ?? false
    }

    /// The first non-`nil` value of `probe`, looked at until `limit` has passed (`nil` then).
    public static func first<T>(within limit: Duration, _ probe: () async throws -> T?) async rethrows -> T? {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while true {
            if let value = try await probe() { return value }
            guard ContinuousClock.now < deadline else { return nil }
            // A real sleep: what is polled (the OS, a child process, a socket) tells nobody when it changes.
            try? await Task.sleep(for: interval)
        }
    }

    /// The value of `task` once it has ended, or `nil` when it has not within `limit` (the bound only ends a
    /// hang: a test of "this never hangs" fails at the bound instead of waiting for the run's timeout).
    public static func value<T: Sendable>(of task: Task<T, Never>, within limit: Duration) async -> T? {
        let ended = Arrivals<T>()
        Task { ended.append(await task.value) }
        return await first(within: limit) { ended.all.first }
    }

    /// ``poll(within:until:)`` for a plain thread (never Swift's cooperative pool): blocks it between looks.
    public static func pollBlocking(within limit: Duration, until condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while true {
            if condition() { return true }
            guard ContinuousClock.now < deadline else { return false }
            let (seconds, attoseconds) = interval.components
            // A real sleep, as in first(within:_:), on a thread that is not Swift's cooperative pool.
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
    }
}
