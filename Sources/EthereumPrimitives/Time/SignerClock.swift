/// Where SignerKit reads the time and waits: every deadline, receipt poll, back-off, lease and recovery sweep
/// takes one, so a test moves a manual clock (`SignerKitTestSupport.ManualClock`) instead of sleeping, and an
/// application may run SignerKit on a clock of its own.
///
/// Instants are `ContinuousClock` instants (monotonic, not wall time), so a deadline a caller built from
/// `ContinuousClock.now` means the same on ``SystemClock``.
public protocol SignerClock: Sendable {
    /// The current instant.
    var now: ContinuousClock.Instant { get }

    /// Suspends until `deadline` has come.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

extension SignerClock {
    /// Suspends for `duration` from now.
    public func sleep(for duration: Duration) async throws { try await sleep(until: now.advanced(by: duration)) }
}

/// The machine's monotonic clock (`ContinuousClock`): the default everywhere.
public struct SystemClock: SignerClock {
    /// The system clock.
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { .now }

    /// `Task.sleep(until:clock: .continuous)`.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}

/// The deadline of the work running in this task, as its caller set it: a signer service sets one per HTTP
/// request, the dispatcher the one its caller gave. Calls that have a time limit of their own (a node call's
/// timeout) end at the earlier of the two, so one request never outlasts the time it was given by running
/// several calls of a full timeout each.
///
/// A deadline is read on the clock it was set on: a call on another clock (a node client on the system clock
/// under a dispatcher on a test's manual clock) is given the time that remains, measured on the caller's clock.
public struct CallerDeadline: Sendable {
    /// The instant, on ``clock``.
    public let instant: ContinuousClock.Instant
    /// The clock the instant is on.
    public let clock: any SignerClock

    /// The deadline of the current task (inherited by the tasks it starts); `nil`: none.
    @TaskLocal public static var current: CallerDeadline?

    /// The time left until the deadline on its clock (negative once it has passed).
    public var remaining: Duration { clock.now.duration(to: instant) }

    /// `deadline` (an instant of `clock`), or the caller's deadline when that comes first.
    public static func bounding(_ deadline: ContinuousClock.Instant, on clock: any SignerClock)
        -> ContinuousClock.Instant
    {
        guard let current else { return deadline }
        return min(deadline, clock.now.advanced(by: current.remaining))
    }

    /// Runs `body` with `deadline` on `clock` (or the caller's deadline, when earlier) as the current deadline;
    /// `nil` keeps the caller's.
    public static func within<T: Sendable>(
        _ deadline: ContinuousClock.Instant?, on clock: any SignerClock,
        isolation: isolated (any Actor)? = #isolation, _ body: () async -> T
    ) async -> T {
        guard let deadline else { return await body() }
        let bounded = CallerDeadline(instant: bounding(deadline, on: clock), clock: clock)
        return await $current.withValue(bounded, operation: body, isolation: isolation)
    }
}
