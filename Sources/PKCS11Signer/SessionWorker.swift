import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The thread a pooled session's Cryptoki calls run on: jobs run one at a time, in submission order.
///
/// After a job the thread keeps polling for the next one for ``spinBeforePark`` before it parks. A
/// signer used in a loop (hash, sign, check, hash, sign…) submits its next job well within that time,
/// so it finds the thread awake: handing a job to a parked thread costs a wake-up (measured 23 µs on
/// the two-core CI machine, where a parked virtual CPU has to be woken), which is about a tenth of a
/// SoftHSM2 signature. A session left alone parks after ``spinBeforePark`` and costs nothing. While
/// polling it yields its core to any other runnable thread (`sched_yield`), so on a busy machine
/// the poll takes no time from the callers whose next job it waits for.
final class SessionWorker: Sendable {
    /// How long the thread polls for a next job before it parks.
    static let spinBeforePark: Duration = .microseconds(200)

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var parked = false
        var stopping = false
    }

    private let state = Mutex(State())
    /// Set when a job is queued and cleared once the queue is empty: what the polling loop reads.
    private let hasWork = Atomic<Bool>(false)
    /// Signalled once for every time the thread parks and a job (or stop) is handed to it.
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the thread; it runs until ``stop()``.
    init() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        #if canImport(Darwin)
            var thread: pthread_t?
            let started = pthread_create(&thread, nil, { sessionWorkerMain($0) }, retained)
            precondition(started == 0, "cannot start a PKCS#11 session thread (pthread_create \(started))")
            if let thread { pthread_detach(thread) }
        #else
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { sessionWorkerMain($0) }, retained)
            precondition(started == 0, "cannot start a PKCS#11 session thread (pthread_create \(started))")
            pthread_detach(thread)
        #endif
    }

    /// Queues `job`; it runs on the worker's thread after the jobs queued before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let wakeUp = state.withLock { state -> Bool in
            state.jobs.append(job)
            defer { state.parked = false }
            return state.parked
        }
        hasWork.store(true, ordering: .releasing)
        if wakeUp { wake.signal() }
    }

    /// Whether the thread is parked (waiting to be woken for a job), for tests that observe parking.
    var isParked: Bool { state.withLock { $0.parked } }

    /// Lets the thread finish the jobs already queued and end.
    func stop() {
        let wakeUp = state.withLock { state -> Bool in
            state.stopping = true
            defer { state.parked = false }
            return state.parked
        }
        hasWork.store(true, ordering: .releasing)
        if wakeUp { wake.signal() }
    }

    /// The thread's loop: run queued jobs, poll, park.
    fileprivate func run() {
        while let job = nextJob() { job() }
    }

    /// The next job, waiting for it (polling, then parked); nil once stopped with nothing queued.
    private func nextJob() -> (@Sendable () -> Void)? {
        var polled = false
        while true {
            enum Step {
                case run(@Sendable () -> Void)
                case poll, park, end
            }
            let step = state.withLock { state -> Step in
                if !state.jobs.isEmpty {
                    let job = state.jobs.removeFirst()
                    if state.jobs.isEmpty { hasWork.store(false, ordering: .relaxed) }
                    return .run(job)
                }
                if state.stopping { return .end }
                if !polled { return .poll }
                state.parked = true
                return .park
            }
            switch step {
            case .run(let job): return job
            case .end: return nil
            case .poll:
                poll()
                polled = true
            case .park:
                wake.wait()
                polled = false
            }
        }
    }

    /// Returns when a job is queued or ``spinBeforePark`` has passed.
    private func poll() {
        let deadline = ContinuousClock.now + Self.spinBeforePark
        while !hasWork.load(ordering: .acquiring) && ContinuousClock.now < deadline { sched_yield() }
    }
}

/// The entry point of a worker's thread; `context` is the worker, retained once for the thread.
private func sessionWorkerMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<SessionWorker>.fromOpaque(context).takeRetainedValue().run()
    return nil
}
