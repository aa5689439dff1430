import Synchronization

/// Suspends until the calling task is cancelled, without a clock: a backend that "never answers" in a test
/// of cancellation.
public func untilCancelled() async {
    let slot = Mutex<CheckedContinuation<Void, Never>?>(nil)
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let cancelled = slot.withLock { stored -> Bool in
                if Task.isCancelled { return true }
                stored = continuation
                return false
            }
            if cancelled { continuation.resume() }
        }
    } onCancel: {
        slot.withLock { stored in
            stored?.resume()
            stored = nil
        }
    }
}

/// A one-shot signal a test awaits: code under test calls ``fire()`` when it reaches a point (a backend was
/// entered, a request was sent), the test awaits ``fired()`` instead of sleeping.
public final class Signal: Sendable {
    private let arrivals = Arrivals<Void>()

    /// A signal not yet fired.
    public init() {}

    /// Fires and wakes every waiter (firing again changes nothing for them).
    public func fire() { arrivals.append(()) }

    /// Returns once ``fire()`` was called (at once when it was), or when the waiting task is cancelled.
    public func fired() async { _ = try? await arrivals.atLeast(1) }
}
