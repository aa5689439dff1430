import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The task executor handlers run on.
///
/// A request's handler starts on the libmicrohttpd thread that read the request (``runInline(_:)``) and
/// runs there for as long as it does not wait on anything outside: a signature over HTTP then costs no
/// hand-over between threads (each one wakes a parked CPU, which on a virtual machine costs about a fifth
/// of a software signature). A job enqueued from any other thread, such as the continuation of an
/// upstream call, runs on a concurrent dispatch queue: threads outside Swift's cooperative pool, so a
/// server keeps answering while the application's async work occupies (or blocks) every cooperative
/// thread. Everything a handler awaits that is not isolated to an actor of its own runs here too.
final class HandlerExecutor: TaskExecutor {
    /// The one executor of every server in the process.
    static let shared = HandlerExecutor()

    private let queue = DispatchQueue(label: "signerkit.http-server.handlers", attributes: .concurrent)
    /// The jobs of the thread inside ``runInline(_:)``, per thread (nil on every other thread).
    private let inlineJobsKey: pthread_key_t

    private init() {
        var key = pthread_key_t()
        let created = pthread_key_create(&key, nil)
        precondition(created == 0, "cannot create the HTTP handler thread key (pthread_key_create \(created))")
        inlineJobsKey = key
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let pointer = pthread_getspecific(inlineJobsKey) {
            Unmanaged<InlineJobs>.fromOpaque(pointer).takeUnretainedValue().jobs.append(job)
            return
        }
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Calls `start` (which starts tasks preferring this executor), then runs on this thread every job
    /// enqueued here until none is left: the tasks' work up to their first wait on another thread.
    func runInline(_ start: () -> Void) {
        let inline = InlineJobs()
        let pointer = Unmanaged.passRetained(inline).toOpaque()
        pthread_setspecific(inlineJobsKey, pointer)
        start()
        let executor = asUnownedTaskExecutor()
        var next = 0
        while next < inline.jobs.count {
            let job = inline.jobs[next]
            next += 1
            job.runSynchronously(on: executor)
        }
        pthread_setspecific(inlineJobsKey, nil)
        Unmanaged<InlineJobs>.fromOpaque(pointer).release()
    }
}

/// The jobs waiting to run on one thread inside ``HandlerExecutor/runInline(_:)``; only that thread
/// touches them.
private final class InlineJobs {
    var jobs: [UnownedJob] = []
}
