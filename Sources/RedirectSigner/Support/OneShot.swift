import Dispatch
import Synchronization

/// A value set once and awaited by any number of tasks (or waited for by plain threads); later values
/// are ignored.
package final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Value, Never>], sleepers: [DispatchSemaphore])
        case done(Value)
    }

    private let state = Mutex<State>(.waiting([], sleepers: []))

    package init() {}

    /// Sets the value and wakes the waiters; `false` when it was already set.
    @discardableResult
    package func fulfill(_ value: Value) -> Bool {
        let woken: ([CheckedContinuation<Value, Never>], [DispatchSemaphore])? = state.withLock { state in
            guard case .waiting(let waiters, let sleepers) = state else { return nil }
            state = .done(value)
            return (waiters, sleepers)
        }
        guard let (waiters, sleepers) = woken else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        for sleeper in sleepers { sleeper.signal() }
        return true
    }

    /// Whether the value is set.
    package var isFulfilled: Bool {
        state.withLock { if case .done = $0 { true } else { false } }
    }

    /// The value, once set.
    package func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready: Value? = state.withLock { state in
                switch state {
                case .done(let value): return value
                case .waiting(var waiters, let sleepers):
                    waiters.append(continuation)
                    state = .waiting(waiters, sleepers: sleepers)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Blocks the calling thread (a plain thread, never one of the cooperative pool's) until the value
    /// is set or `seconds` have passed; `nil` on time-out.
    package func wait(seconds: Int) -> Value? {
        let sleeper = DispatchSemaphore(value: 0)
        let ready: Value? = state.withLock { state in
            switch state {
            case .done(let value): return value
            case .waiting(let waiters, var sleepers):
                sleepers.append(sleeper)
                state = .waiting(waiters, sleepers: sleepers)
                return nil
            }
        }
        if let ready { return ready }
        _ = sleeper.wait(timeout: .now() + .seconds(seconds))
        return state.withLock { state in
            if case .done(let value) = state { value } else { nil }
        }
    }
}

/// A shareable mutable cell guarded by a lock.
package final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: Value) { mutex = Mutex(value) }

    /// The current value.
    package var value: Value {
        get { mutex.withLock { $0 } }
        set { mutex.withLock { $0 = newValue } }
    }
}
