import EthereumPrimitives
import Synchronization

/// A ``SignerClock`` that moves only when a test says so: ``advance(by:)`` wakes every sleeper whose deadline
/// has come, and ``sleepers(atLeast:)`` waits (without a clock of its own) until code under test is asleep, so
/// a test of waiting behaviour never sleeps and never races.
public final class ManualClock: SignerClock {
    private struct Sleeper {
        let id: Int
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var offset: Duration = .zero
        var sleepers: [Sleeper] = []
        var nextID = 0
        /// Tests waiting for a number of sleepers.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        mutating func wakeWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { $0.count <= sleepers.count }.map(\.continuation)
            watchers.removeAll { $0.count <= sleepers.count }
            return ready
        }
    }

    private let origin = ContinuousClock.now
    private let state = Mutex(State())

    /// A clock standing at the moment it is made.
    public init() {}

    /// The origin plus every ``advance(by:)`` so far.
    public var now: ContinuousClock.Instant { origin.advanced(by: state.withLock { $0.offset }) }

    /// Suspends until the clock has been advanced to `deadline` (at once when it is there already).
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (due, watchers) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (false, []) }
                    if origin.advanced(by: state.offset) >= deadline { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, state.wakeWatchers())
                }
                for watcher in watchers { watcher.resume() }
                switch due {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has come, earliest first.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.offset += duration
            let now = origin.advanced(by: state.offset)
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// How many tasks are asleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns once at least `count` tasks are asleep on this clock.
    public func sleepers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Whether `count` tasks fall asleep on this clock before `task` ends (`false` when it ends first); never
    /// hangs on a task that ends without sleeping, so a test of a wait that should not happen fails instead.
    public func asleep<T: Sendable>(count: Int = 1, orDone task: Task<T, Never>) async -> Bool {
        let (events, continuation) = AsyncStream.makeStream(of: Bool.self)
        Task {
            await sleepers(atLeast: count)
            continuation.yield(true)
        }
        Task {
            _ = await task.value
            continuation.yield(false)
        }
        for await event in events { return event }
        return false
    }

    /// The code under test fell asleep on the clock where it was expected to finish.
    public struct FellAsleep: Error, CustomStringConvertible {
        /// What the test says.
        public var description: String { "expected the call to end, not to wait on the manual clock" }
    }

    /// The task's value once it ends; throws ``FellAsleep`` (so the test fails instead of hanging) when it
    /// falls asleep on this clock instead.
    public func value<T: Sendable>(of task: Task<T, Never>) async throws(FellAsleep) -> T {
        guard !(await asleep(orDone: task)) else { throw FellAsleep() }
        return await task.value
    }
}
