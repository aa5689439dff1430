import EthereumPrimitives
import Synchronization

/// A ``SignerClock`` that reads real time but skips every wait, recording its length: for a test against real
/// servers where a wait's length is what is checked (a capped `Retry-After`), not its passing. Deadlines mean
/// what they mean on ``SystemClock`` (a ``ManualClock`` lags real time, which an HTTP exchange's deadline
/// does not), and no test spends the time.
public final class SkippingClock: SignerClock {
    private let recorded = Mutex<[Duration]>([])

    /// A clock that has skipped nothing yet.
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { .now }

    /// Records how long the wait until `deadline` would be (zero when it has come) and returns at once.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try Task.checkCancellation()
        let length = max(.zero, ContinuousClock.now.duration(to: deadline))
        recorded.withLock { $0.append(length) }
    }

    /// The waits asked for so far, in order.
    public var waits: [Duration] { recorded.withLock { $0 } }
}
