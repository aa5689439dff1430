import CPKCS11
import Dispatch
import Synchronization

/// A bounded pool of read-only sessions on one token, each used by one operation at a time.
///
/// PKCS#11 sessions carry operation state (`C_SignInit` … `C_Sign`), so two threads must never
/// share one. The pool hands each session to a single holder between ``acquire()`` and
/// ``checkIn(_:)``; when all `capacity` sessions are busy, callers wait (suspended, without
/// blocking a thread) in first-come order. Sessions are opened lazily, up to `capacity`.
///
/// A holder's Cryptoki calls run on the session's own thread (``onQueue(_:_:)``, a
/// ``SessionWorker``), so a slow token never blocks a thread of Swift's cooperative pool.
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

    init(module: PKCS11Module, slot: CK_SLOT_ID, capacity: Int) {
        self.module = module
        self.slot = slot
        self.capacity = capacity
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

    /// Test hook: see `PKCS11KeySigner.loseIdleSessionsForTesting()`.
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

    /// Runs `body` on the session's thread and returns its result; the caller is suspended
    /// meanwhile, no thread of Swift's cooperative pool is blocked.
    ///
    /// `body`, and everything it captured, is released on the session's thread *before* the caller resumes.
    /// Otherwise the thread could drop a signer's last reference after its caller has moved on, and
    /// the signer's deinit (which closes sessions) would run on that thread, racing whatever the
    /// caller does next, such as exiting the process while the module tears itself down.
    func onQueue<T: Sendable>(_ session: PooledSession, _ body: @escaping @Sendable () -> T) async -> T {
        let work = QueuedWork(body)
        return await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            session.worker.submit {
                let result = work.run()
                continuation.resume(returning: result)
            }
        }
    }
}

/// One pooled session and the thread its blocking calls run on.
///
/// `@unchecked Sendable`: `handle` is mutable, but only the session's current holder touches it.
/// The pool gives a session to one holder at a time (hand-overs are ordered by the pool's
/// mutex and continuation resumption), and the holder reads or writes `handle` inside jobs on
/// `worker`, which runs one at a time, or on its own thread between them: it awaits each job before
/// touching the session again.
final class PooledSession: @unchecked Sendable {
    /// The Cryptoki session; `CK_INVALID_HANDLE` once it is lost.
    var handle: CK_SESSION_HANDLE

    /// Where this session's Cryptoki calls run.
    let worker = SessionWorker()

    init(handle: CK_SESSION_HANDLE) {
        self.handle = handle
    }

    deinit { worker.stop() }
}

/// A closure run once on a session's thread and released as soon as it has run.
private final class QueuedWork<T>: @unchecked Sendable {
    // @unchecked Sendable: `body` is read and cleared once, by the one job that runs it.
    private var body: (@Sendable () -> T)?

    init(_ body: @escaping @Sendable () -> T) { self.body = body }

    /// Runs the closure and drops it (with its captures) before returning the result.
    func run() -> T {
        guard let body else { preconditionFailure("QueuedWork runs once") }
        self.body = nil
        return body()
    }
}
