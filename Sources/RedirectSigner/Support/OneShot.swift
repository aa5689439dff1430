import Synchronization

/// A value set once and awaited by any number of tasks; later values are ignored.
package final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Value, Never>])
        case done(Value)
    }

    private let state = Mutex<State>(.waiting([]))

    package init() {}

    /// Sets the value and wakes the waiters; `false` when it was already set.
    @discardableResult
    package func fulfill(_ value: Value) -> Bool {
        let woken: [CheckedContinuation<Value, Never>]? = state.withLock { state in
            guard case .waiting(let waiters) = state else { return nil }
            state = .done(value)
            return waiters
        }
        guard let woken else { return false }
        for waiter in woken { waiter.resume(returning: value) }
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
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
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
