import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The task executor of one request's handler: the libmicrohttpd thread that read the request.
///
/// The connection's thread starts the handler and runs its jobs (``runUntilFinished()``) until the handler
/// has answered. A job enqueued while that thread waits, such as the continuation of an audit-log `fsync` or
/// of an upstream call, is handed straight to it: the thread that finished the wait wakes the one thread that
/// sends the answer, rather than a dispatch thread that then wakes it (each hand-over wakes a parked CPU,
/// which on a virtual machine costs about a fifth of a software signature). A job enqueued while the thread is
/// busy with another job (a child task becoming ready beside its parent), or once the thread has stopped
/// waiting for this handler, runs on a concurrent dispatch queue: threads outside Swift's cooperative pool,
/// so a server keeps answering while the application's async work occupies (or blocks) every cooperative
/// thread.
final class HandlerExecutor: TaskExecutor, Sendable {
    /// Where the connection's thread is.
    private enum Mode {
        /// Running this executor's jobs (or starting the handler).
        case running
        /// Blocked until ``wake`` is signalled.
        case waiting
        /// Gone: it returned from ``runUntilFinished()``.
        case released
    }

    private struct State {
        var mode = Mode.running
        /// Jobs for the connection's thread, oldest first.
        var pending: [UnownedJob] = []
        var next = 0
        /// The handler has answered.
        var finished = false
        /// The server stopped waiting for this handler (``abandon()``).
        var abandoned = false
    }

    /// Jobs the connection's thread cannot take.
    private static let overflow = DispatchQueue(label: "signerkit.http-server.handlers", attributes: .concurrent)

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// The connection's thread (`pthread_t` as an integer, so the executor is `Sendable`).
    private let owner: UInt

    /// An executor for the calling thread, which must then call ``runUntilFinished()``.
    init() { owner = UInt(bitPattern: Int(bitPattern: pthread_self())) }

    private var onOwnerThread: Bool { UInt(bitPattern: Int(bitPattern: pthread_self())) == owner }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let onOwner = onOwnerThread
        let target = state.withLock { state -> (taken: Bool, signal: Bool) in
            switch state.mode {
            case .running where onOwner:
                state.pending.append(job)
                return (true, false)
            case .waiting:
                state.pending.append(job)
                state.mode = .running
                return (true, true)
            case .running, .released:
                return (false, false)
            }
        }
        if target.signal { wake.signal() }
        if target.taken { return }
        let executor = asUnownedTaskExecutor()
        Self.overflow.async { job.runSynchronously(on: executor) }
    }

    /// Runs the jobs handed to the calling (owner) thread until the handler has answered or ``abandon()`` was
    /// called; later jobs run on the dispatch queue.
    func runUntilFinished() {
        let executor = asUnownedTaskExecutor()
        while true {
            enum Step {
                case run(UnownedJob)
                case wait
                case stop
            }
            let step = state.withLock { state -> Step in
                if state.next < state.pending.count {
                    let job = state.pending[state.next]
                    state.next += 1
                    if state.next == state.pending.count {
                        state.pending.removeAll(keepingCapacity: true)
                        state.next = 0
                    }
                    return .run(job)
                }
                if state.finished || state.abandoned {
                    state.mode = .released
                    return .stop
                }
                state.mode = .waiting
                return .wait
            }
            switch step {
            case .run(let job): job.runSynchronously(on: executor)
            case .wait: wake.wait()
            case .stop: return
            }
        }
    }

    /// Called by the handler's task once its answer is recorded.
    func finish() { stopWaiting { $0.finished = true } }

    /// Stops the connection's thread waiting for a handler that ignores cancellation (it answers without it).
    func abandon() { stopWaiting { $0.abandoned = true } }

    private func stopWaiting(_ mark: (inout State) -> Void) {
        let signal = state.withLock { state -> Bool in
            mark(&state)
            guard state.mode == .waiting else { return false }
            state.mode = .running
            return true
        }
        if signal { wake.signal() }
    }
}
