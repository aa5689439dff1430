import Synchronization

/// What arrives while a test runs (opened URLs, fetched pages, written lines), in order, and a way to await
/// it instead of polling: ``atLeast(_:)`` returns once that many have arrived, however long the machine
/// takes; a test that waits for something that never comes is ended by the run's own timeout.
public final class Arrivals<Element: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let count: Int
        let continuation: CheckedContinuation<[Element], any Error>
    }

    private struct State {
        var elements: [Element] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Nothing has arrived yet.
    public init() {}

    /// Everything that arrived so far.
    public var all: [Element] { state.withLock { $0.elements } }

    /// Adds `element` and wakes the waiters it completes.
    public func append(_ element: Element) {
        let (ready, elements) = state.withLock { state -> ([Waiter], [Element]) in
            state.elements.append(element)
            let count = state.elements.count
            let ready = state.waiters.filter { $0.count <= count }
            state.waiters.removeAll { $0.count <= count }
            return (ready, state.elements)
        }
        for waiter in ready { waiter.continuation.resume(returning: elements) }
    }

    /// Everything that arrived, once at least `count` elements have.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled first.
    public func atLeast(_ count: Int) async throws -> [Element] {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Element], any Error>) in
                let ready = state.withLock { state -> [Element]?? in
                    if Task.isCancelled { return .some(nil) }
                    if state.elements.count >= count { return .some(state.elements) }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return nil
                }
                switch ready {
                case .some(let elements?): continuation.resume(returning: elements)
                case .some(nil): continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The element at `index`, once it has arrived.
    public func element(_ index: Int) async throws -> Element { try await atLeast(index + 1)[index] }
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
