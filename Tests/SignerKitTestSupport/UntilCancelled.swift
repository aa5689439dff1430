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
