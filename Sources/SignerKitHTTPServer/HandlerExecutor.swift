import Dispatch

/// The task executor handlers run on: a concurrent dispatch queue, threads outside Swift's cooperative
/// pool. So a server keeps answering while the application's async work occupies (or blocks) every
/// cooperative thread; everything a handler awaits that is not isolated to an actor runs here too.
final class HandlerExecutor: TaskExecutor {
    /// The one executor of every server in the process.
    static let shared = HandlerExecutor()

    private let queue = DispatchQueue(label: "signerkit.http-server.handlers", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
