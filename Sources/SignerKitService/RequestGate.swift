import Synchronization

/// Admits at most ``limit`` JSON-RPC requests at once (`limits.maxConcurrentRequests`); the service
/// answers one more with HTTP 503 and `Retry-After` instead of queueing it behind the others.
final class RequestGate: Sendable {
    /// Requests admitted at once.
    let limit: Int
    private let running = Atomic<Int>(0)

    /// A gate admitting `limit` requests at once.
    init(limit: Int) { self.limit = limit }

    /// Admits one request unless ``limit`` are running; an admitted caller must call ``leave()``.
    func tryEnter() -> Bool {
        var current = running.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = running.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Ends an admitted request.
    func leave() { running.subtract(1, ordering: .releasing) }
}
