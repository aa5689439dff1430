import CPKCS11
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bounded pool of read-only sessions on one token, each used by one operation at a time.
///
/// PKCS#11 sessions carry operation state (`C_SignInit` … `C_Sign`), so two threads must never
/// share one. The pool hands each session to a single holder between ``acquire()`` and
/// ``checkIn(_:)``; when all `capacity` sessions are busy, callers wait (suspended, without
/// blocking a thread) in first-come order. Sessions are opened lazily, up to `capacity`.
///
/// Where a holder's Cryptoki calls run is decided per signature (``beginInlineCall()``): on the
/// calling thread while the token has been answering quickly and an inline slot is free,
/// otherwise on the session's own serial dispatch queue (``onQueue(_:_:)``).
final class SessionPool: Sendable {
    /// Return codes after which a session is gone and is reopened once.
    static let lostSessionCodes: Set<PKCS11ReturnCode> = [.sessionHandleInvalid, .sessionClosed, .deviceRemoved]

    /// Return codes after which the pool reopens the session and looks the key up again, once:
    /// a lost session, a stale key handle, or an operation left active.
    static let recoverableCodes: Set<PKCS11ReturnCode> =
        lostSessionCodes.union([.keyHandleInvalid, .objectHandleInvalid, .operationActive])

    /// The module and slot sessions are opened on.
    let module: PKCS11Module
    let slot: CK_SLOT_ID

    /// The most sessions open at once.
    let capacity: Int

    /// What a waiting caller is handed: an idle session, or the right to open a new one.
    enum Grant: Sendable {
        case session(PooledSession)
        case openNew
    }

    private struct State {
        var idle: [PooledSession] = []
        var open = 0
        var waiters: [CheckedContinuation<Grant, Never>] = []
    }

    private let state = Mutex(State())

    /// Duration of the most recent `C_SignInit` + `C_Sign` on any of the pool's sessions, in
    /// nanoseconds; 0 before the first.
    private let lastCallNanoseconds = Atomic<UInt64>(0)

    /// The limit on calls on callers' threads this pool draws from.
    private let inlineSlots: InlineCallSlots

    /// Where calls run (``CallPlacement/adaptive`` except in tests).
    private let placement = Atomic<CallPlacement>(.adaptive)

    /// Calls that ran on the holder's thread.
    private let inlineCallCount = Atomic<Int>(0)

    init(module: PKCS11Module, slot: CK_SLOT_ID, capacity: Int, inlineSlots: InlineCallSlots = .shared) {
        self.module = module
        self.slot = slot
        self.capacity = capacity
        self.inlineSlots = inlineSlots
    }

    deinit {
        // Every holder keeps the pool alive, so at this point all sessions are idle.
        for session in state.withLock({ $0.idle }) { module.closeSession(session.handle) }
    }

    /// Sessions currently open (idle or in use).
    var openCount: Int { state.withLock { $0.open } }

    /// Takes an idle session, opens a new one while fewer than `capacity` exist, or waits.
    func acquire() async throws(PKCS11Error) -> PooledSession {
        // Fast path: nobody waits while a session is idle (``release(_:)`` serves waiters first),
        // so taking one here keeps the first-come order and needs no continuation.
        let available = state.withLock { Self.take(&$0, capacity: capacity) }
        let grant: Grant
        if let available {
            grant = available
        } else {
            grant = await waitForGrant()
        }
        switch grant {
        case .session(let session):
            return session
        case .openNew:
            do throws(PKCS11Error) {
                return PooledSession(handle: try module.openSession(slot: slot, readWrite: false))
            } catch {
                discard(nil)
                throw error
            }
        }
    }

    /// Queues the caller for the next session given back (or the right to open one).
    private func waitForGrant() async -> Grant {
        await withCheckedContinuation { continuation in
            let immediate: Grant? = state.withLock { state in
                if let grant = Self.take(&state, capacity: capacity) { return grant }
                state.waiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// An idle session, or the right to open one while fewer than `capacity` are open; nil when
    /// neither is available.
    private static func take(_ state: inout State, capacity: Int) -> Grant? {
        if let session = state.idle.popLast() { return .session(session) }
        guard state.open < capacity else { return nil }
        state.open += 1
        return .openNew
    }

    /// Returns a usable session: the longest waiter gets it, else it goes idle. Returns whether a
    /// waiter got it.
    @discardableResult
    func release(_ session: PooledSession) -> Bool {
        let waiter: CheckedContinuation<Grant, Never>? = state.withLock { state in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.idle.append(session)
            return nil
        }
        waiter?.resume(returning: .session(session))
        return waiter != nil
    }

    /// Gives up a session that could not be opened or was lost (closing it if it has a handle):
    /// the longest waiter may open a replacement, else the pool shrinks by one.
    func discard(_ session: PooledSession?) {
        if let session, session.handle != CK_SESSION_HANDLE(CK_INVALID_HANDLE) {
            module.closeSession(session.handle)
            session.handle = CK_SESSION_HANDLE(CK_INVALID_HANDLE)
        }
        let waiter: CheckedContinuation<Grant, Never>? = state.withLock { state in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.open -= 1
            return nil
        }
        waiter?.resume(returning: .openNew)
    }

    /// Test hook: see `PKCS11Signer.loseIdleSessionsForTesting()`.
    func loseIdleSessionsForTesting() -> Int {
        state.withLock { state in
            for session in state.idle {
                module.closeSession(session.handle)
                session.handle = 0xDEAD_0000_0000
            }
            return state.idle.count
        }
    }

    /// Gives a session back after use: released for the next holder, or discarded when the
    /// holder left it without a handle (lost, or closed to end an operation).
    @discardableResult
    func checkIn(_ session: PooledSession) -> Bool {
        if session.handle == CK_SESSION_HANDLE(CK_INVALID_HANDLE) {
            discard(session)
            return false
        } else {
            return release(session)
        }
    }

    // MARK: where the blocking calls run

    /// Runs `body` on the session's serial dispatch queue and returns its result; the caller is
    /// suspended meanwhile, no thread of Swift's cooperative pool is blocked.
    ///
    /// `body`, and everything it captured, is released on the queue *before* the caller resumes.
    /// Otherwise the queue could drop a signer's last reference after its caller has moved on, and
    /// the signer's deinit (which closes sessions) would run on the queue, racing whatever the
    /// caller does next, such as exiting the process while the module tears itself down.
    func onQueue<T: Sendable>(_ session: PooledSession, _ body: @escaping @Sendable () -> T) async -> T {
        let work = QueuedWork(body)
        return await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            session.queue.async {
                let result = work.run()
                continuation.resume(returning: result)
            }
        }
    }

    /// Calls of at most this many nanoseconds count as quick: SoftHSM2 signs in about 0.4 ms, a
    /// network HSM or a smart card takes several milliseconds to a second.
    static let quickCallNanoseconds: UInt64 = 1_000_000

    /// Claims the right to make the holder's next Cryptoki calls on the calling thread (a thread
    /// of Swift's cooperative pool, for async callers), skipping the two thread hand-overs of
    /// ``onQueue(_:_:)``; `nil` means: use the queue.
    ///
    /// Granted only while the pool's most recent `C_SignInit` + `C_Sign` was quick (so never
    /// before the first) and an inline slot is free (one per processor in the process). A quick
    /// call is the token's computation (SoftHSM2 signs in-process in well under a millisecond), so
    /// it occupies a cooperative thread as any computation does; a token that waits on a device
    /// or a network is slow, and after one slow call the calls go to the queue until one is quick
    /// again. End the claim with ``InlineCall/end()`` right after the calls.
    func beginInlineCall() -> InlineCall? {
        switch placement.load(ordering: .relaxed) {
        case .queue:
            return nil
        case .inline:
            inlineCallCount.add(1, ordering: .relaxed)
            return InlineCall(slots: nil)
        case .adaptive:
            let last = lastCallNanoseconds.load(ordering: .relaxed)
            guard last > 0, last <= Self.quickCallNanoseconds, inlineSlots.begin() else { return nil }
            inlineCallCount.add(1, ordering: .relaxed)
            return InlineCall(slots: inlineSlots)
        }
    }

    /// Records how long a `C_SignInit` + `C_Sign` took (from `start`, a
    /// ``monotonicNanoseconds()`` reading).
    func recordCall(startedAt start: UInt64) {
        recordCall(nanoseconds: monotonicNanoseconds() &- start)
    }

    /// Records a call's duration.
    func recordCall(nanoseconds: UInt64) {
        lastCallNanoseconds.store(max(1, nanoseconds), ordering: .relaxed)
    }

    /// Calls made on the holder's thread so far (diagnostics and tests).
    var inlineCalls: Int { inlineCallCount.load(ordering: .relaxed) }

    /// Test hook: where calls run from now on.
    func placeCallsForTesting(_ placement: CallPlacement) {
        self.placement.store(placement, ordering: .relaxed)
    }
}

/// Where a pool's Cryptoki calls run.
enum CallPlacement: UInt8, AtomicRepresentable {
    /// On the caller's thread while the token is quick and a slot is free, else on the queue.
    case adaptive
    /// Always on the session's queue (tests).
    case queue
    /// Always on the caller's thread, without taking a slot (tests).
    case inline
}

/// A claim from ``SessionPool/beginInlineCall()``.
struct InlineCall {
    /// The slots the claim took one of; `nil` for a forced inline call.
    let slots: InlineCallSlots?

    /// Gives the slot back.
    func end() {
        slots?.end()
    }
}

/// A limit on Cryptoki calls running on callers' threads at once.
final class InlineCallSlots: Sendable {
    /// The process-wide limit: the number of active processors (the width of Swift's cooperative
    /// pool), so inline calls never outnumber the threads that can run them. With one slot fewer,
    /// two sessions on two cores signed 1.4× as fast as one instead of 1.7–2×: the second always
    /// paid the queue's thread hand-overs.
    static let shared = InlineCallSlots(capacity: max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

    /// The most calls inline at once.
    let capacity: Int

    /// Calls currently inline.
    private let running = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Takes a slot if one is free.
    func begin() -> Bool {
        var current = running.load(ordering: .relaxed)
        while current < capacity {
            let (exchanged, original) = running.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives a slot back.
    func end() {
        running.subtract(1, ordering: .acquiringAndReleasing)
    }
}

/// Nanoseconds of `CLOCK_MONOTONIC`; only differences are meaningful.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// One pooled session and the serial queue its blocking calls run on when they do not run inline.
///
/// `@unchecked Sendable`: `handle` is mutable, but only the session's current holder touches it.
/// The pool gives a session to one holder at a time (hand-overs are ordered by the pool's
/// mutex and continuation resumption), and the holder reads or writes `handle` either on its
/// own thread or inside blocks on `queue`, which is serial, never both at once: it awaits each
/// block before touching the session again.
final class PooledSession: @unchecked Sendable {
    /// The Cryptoki session; `CK_INVALID_HANDLE` once it is lost.
    var handle: CK_SESSION_HANDLE

    /// Where this session's Cryptoki calls run unless they run on the holder's thread.
    let queue = DispatchQueue(label: "SignerKit.PKCS11Signer.session")

    init(handle: CK_SESSION_HANDLE) {
        self.handle = handle
    }
}

/// A closure run once on a session queue and released as soon as it has run.
private final class QueuedWork<T>: @unchecked Sendable {
    // @unchecked Sendable: `body` is read and cleared once, by the one queue block that runs it.
    private var body: (@Sendable () -> T)?

    init(_ body: @escaping @Sendable () -> T) { self.body = body }

    /// Runs the closure and drops it (with its captures) before returning the result.
    func run() -> T {
        guard let body else { preconditionFailure("QueuedWork runs once") }
        self.body = nil
        return body()
    }
}
