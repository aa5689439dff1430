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
