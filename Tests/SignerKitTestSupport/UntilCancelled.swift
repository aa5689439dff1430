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
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// A signal not yet fired.
    public init() {}

    /// Fires (once; later calls do nothing) and wakes every waiter.
    public func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once ``fire()`` was called.
    public func fired() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.fired { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
