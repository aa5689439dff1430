import Dispatch
import Synchronization

/// Waits for async work from a thread that has to block until it is done (a thread serving a socket),
/// without needing Swift's cooperative thread pool: the work runs on an executor of its own.
///
/// The cooperative pool has one thread per core; when the application keeps those threads busy (or
/// blocked), a loopback server whose answers depend on them stops answering. Work started here runs
/// on dispatch threads instead, including everything it awaits that is not isolated to an actor.
package enum BlockingAwait {
    /// Runs `body` on the dedicated executor and blocks the calling thread until it returns.
    /// Never call this from a Swift concurrency thread.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        guard let value = result.withLock({ $0.take() }) else {
            preconditionFailure("BlockingAwait: the task signalled without a result")
        }
        return value
    }

    private static let executor = DispatchTaskExecutor(label: "SignerKit.BlockingAwait")
}

/// A task executor running jobs on a concurrent dispatch queue (threads outside the cooperative pool).
final class DispatchTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label, attributes: .concurrent) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
