import CPKCS11
import Dispatch
import Synchronization

/// A bounded pool of read-only sessions on one token, each used by one operation at a time.
///
/// PKCS#11 sessions carry operation state (`C_SignInit` … `C_Sign`), so two threads must never
/// share one. The pool hands each session to a single holder between ``acquire()`` and
/// ``release(_:)``; when all `capacity` sessions are busy, callers wait (suspended, without
/// blocking a thread) in first-come order. Sessions are opened lazily, up to `capacity`.
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
        let grant: Grant = await withCheckedContinuation { continuation in
            let immediate: Grant? = state.withLock { state in
                if let session = state.idle.popLast() { return .session(session) }
                if state.open < capacity {
                    state.open += 1
                    return .openNew
                }
                state.waiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
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

    /// Returns a usable session: the longest waiter gets it, else it goes idle.
    func release(_ session: PooledSession) {
        let waiter: CheckedContinuation<Grant, Never>? = state.withLock { state in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.idle.append(session)
            return nil
        }
        waiter?.resume(returning: .session(session))
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

    /// Acquires a session, runs `body` with it on the session's own dispatch queue (so the
    /// blocking Cryptoki calls never occupy a Swift concurrency thread), then releases the
    /// session, or discards it if `body` left it without a handle.
    func run<T: Sendable>(_ body: @escaping @Sendable (PooledSession) -> Result<T, PKCS11Error>)
        async throws(PKCS11Error) -> T
    {
        let session = try await acquire()
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, PKCS11Error>, Never>) in
            session.queue.async { continuation.resume(returning: body(session)) }
        }
        if session.handle == CK_SESSION_HANDLE(CK_INVALID_HANDLE) {
            discard(session)
        } else {
            release(session)
        }
        return try result.get()
    }
}

/// One pooled session and the serial queue its blocking calls run on.
///
/// `@unchecked Sendable`: `handle` is mutable, but only the session's current holder touches it.
/// The pool gives a session to one holder at a time (hand-overs are ordered by the pool's
/// mutex and continuation resumption), and the holder reads or writes `handle` only inside
/// blocks on `queue`, which is serial, or after those blocks have finished.
final class PooledSession: @unchecked Sendable {
    /// The Cryptoki session; `CK_INVALID_HANDLE` once it is lost.
    var handle: CK_SESSION_HANDLE

    /// Where this session's Cryptoki calls run.
    let queue = DispatchQueue(label: "SignerKit.PKCS11Signer.session")

    init(handle: CK_SESSION_HANDLE) {
        self.handle = handle
    }
}
