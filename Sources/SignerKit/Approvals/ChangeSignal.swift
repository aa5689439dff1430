import EthereumPrimitives
import Synchronization

/// A version number that wakes its waiters when it moves: a long-poll reads the version, reads the store, and
/// waits for a change after that version (or its deadline) — no change made in this process between the read
/// and the wait is missed.
final class ChangeSignal: Sendable {
    private struct State {
        var version: UInt64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// The current version.
    var version: UInt64 { state.withLock { $0.version } }

    /// Moves the version and wakes every waiter.
    func changed() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.version &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the version is past `seen`, `deadline` has come on `clock`, or the task is cancelled.
    func wait(after seen: UInt64, until deadline: ContinuousClock.Instant, on clock: any SignerClock) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: deadline) }
            group.addTask { await self.moved(after: seen) }
            await group.next()
            group.cancelAll()
        }
    }

    private func moved(after seen: UInt64) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.version != seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
