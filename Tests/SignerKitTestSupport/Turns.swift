import Synchronization

/// At most `width` holders at once; the others wait their turn, which comes when a holder leaves (no clock).
/// For work that only competes for the machine's two cores when it runs all at once: the Python processes the
/// tests start (an EVM node imports for about a second of CPU; forty starting together starve each other past
/// any bound).
public final class Turns: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// Room for `width` holders at once.
    public init(width: Int) { state = Mutex(State(free: max(1, width))) }

    /// Returns once it is the caller's turn; pair it with ``leave()``.
    public func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Ends a turn: the longest waiter's turn begins.
    public func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    /// `body` in a turn.
    public func run<T>(_ body: () async throws -> T) async rethrows -> T {
        await take()
        defer { leave() }
        return try await body()
    }
}
