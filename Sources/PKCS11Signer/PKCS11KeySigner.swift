import CPKCS11
import EthereumPrimitives
import Secp256k1
import SignerKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `PrehashSigner` whose secp256k1 key lives on a PKCS#11 token (an HSM, a smart card,
/// SoftHSM2); the key never leaves it.
///
/// Each signature is one `C_SignInit(CKM_ECDSA)` + `C_Sign` over exactly the 32-byte digest.
/// The token's raw r‖s is brought to low s (EIP-2), and the recovery id is found by trial
/// recovery against the public key read from the token when the signer was created
/// (`ECDSA/recovers(_:prehash:r:s:recoveryId:)`): a recovery id is only returned when ecrecover
/// of the final signature yields that cached key, so a signature from any other key (or a
/// corrupted one) is rejected instead of returned. The two trials run side by side: once `C_Sign`
/// has returned, the session's thread tries id 0 while the caller resumes and tries id 1, so the
/// caller's wake-up and a trial overlap (when the thread's verdict is not in yet, the caller
/// tries id 0 itself; it never waits for it).
///
/// Signing is safe from any number of concurrent tasks. Each in-flight signature holds one
/// session of a pool (``maximumSessions``, default one per processor) from `C_SignInit` to
/// `C_Sign`; further callers wait for a free session. The two calls always run on the session's
/// own thread, never on Swift's cooperative threads, however slow the token is.
/// A session lost to
/// `CKR_SESSION_HANDLE_INVALID`, `CKR_SESSION_CLOSED` or `CKR_DEVICE_REMOVED` (or a stale key
/// handle) is reopened and the key looked up again, once; login is never retried, so if the
/// token logged the process out, the error (`CKR_USER_NOT_LOGGED_IN`) is reported.
public final class PKCS11KeySigner: PrehashSigner, CustomStringConvertible {
    /// The account this key controls, derived from the token's public key.
    public let address: Address

    /// The key's public key as read from the token (`CKA_EC_POINT`).
    public let publicKey: PublicKey

    /// The key's label, id and curve.
    public let key: PKCS11KeyInfo

    /// The token holding the key; kept open (and logged in) while the signer exists.
    public let token: PKCS11Token

    /// The default pool size: the number of active processors.
    public static var defaultMaximumSessions: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// The most sessions the signer opens at once (and so the most signatures in flight).
    public var maximumSessions: Int { pool.capacity }

    /// Sessions currently open (they are opened on demand).
    public var openSessions: Int { pool.openCount }

    private let pool: SessionPool

    /// The private key's object handle; refreshed after a session is reopened.
    private let keyHandle: Atomic<UInt>

    init(token: PKCS11Token, key: PKCS11KeyInfo, publicKey: PublicKey, handle: CK_OBJECT_HANDLE, maximumSessions: Int) {
        self.token = token
        self.key = key
        self.publicKey = publicKey
        address = publicKey.address
        keyHandle = Atomic(UInt(handle))
        pool = SessionPool(module: token.module, slot: CK_SLOT_ID(token.slotID), capacity: maximumSessions)
    }

    /// Loads the module, opens the token, logs in once with `pin` and returns a signer for the
    /// key `key` names.
    ///
    /// - Throws: any ``PKCS11Error`` of ``PKCS11Module/load(path:)``,
    ///   ``PKCS11Module/token(_:)``, ``PKCS11Token/login(pin:)`` and
    ///   ``PKCS11Token/signer(for:maximumSessions:)``.
    public static func open(
        module path: String = PKCS11Module.defaultPath,
        token selector: PKCS11TokenSelector,
        key locator: PKCS11KeyLocator,
        pin: PINSource = .environment(),
        maximumSessions: Int = PKCS11KeySigner.defaultMaximumSessions
    ) throws(PKCS11Error) -> PKCS11KeySigner {
        let token = try PKCS11Module.load(path: path).token(selector)
        try token.login(pin: pin)
        return try token.signer(for: locator, maximumSessions: maximumSessions)
    }

    /// Signs a 32-byte digest on the token; the result is low-s and recovers to ``address``.
    ///
    /// Failures are ``PKCS11Error``s converted with ``PKCS11Error/signerError``; use
    /// ``signReportingPKCS11Error(prehash:)`` to get the PKCS#11 error itself.
    public func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
        do throws(PKCS11Error) {
            return try await signReportingPKCS11Error(prehash: prehash)
        } catch {
            throw error.signerError
        }
    }

    /// ``sign(prehash:)`` with the typed PKCS#11 error (for example
    /// `C_SignInit: CKR_USER_NOT_LOGGED_IN` or ``PKCS11Error/signatureMismatch(_:)``).
    public func signReportingPKCS11Error(prehash: Digest32) async throws(PKCS11Error) -> RecoverableSignature {
        let verdict = RecoveryIdZeroVerdict()
        let raw = try await rawSignature(prehash: prehash, verdict: verdict)
        return try recoverable(raw, prehash: prehash, verdict: verdict)
    }

    /// `PKCS11KeySigner(key "…" on token "…", address 0x…)`; never the PIN.
    public var description: String {
        "PKCS11KeySigner(key \"\(key.label)\" on token \"\(token.label)\", address \(address.checksummed))"
    }

    // MARK: internals

    /// The token's r‖s (s brought to low s once it leaves the session's thread).
    private struct RawSignature: Sendable {
        let r: Bytes32
        let s: Bytes32
    }

    /// A raw signature, or why there is none.
    private typealias RawResult = Result<RawSignature, PKCS11Error>

    #if compiler(>=6.2)
        /// ``signOnSession(prehash:verdict:)``; `@concurrent`: never runs on the caller's actor.
        @concurrent
        private func rawSignature(prehash: Digest32, verdict: RecoveryIdZeroVerdict) async throws(PKCS11Error)
            -> RawSignature
        {
            try await signOnSession(prehash: prehash, verdict: verdict)
        }
    #else
        /// ``signOnSession(prehash:verdict:)`` (nonisolated async: runs on the global executor, never on the
        /// caller's actor).
        private func rawSignature(prehash: Digest32, verdict: RecoveryIdZeroVerdict) async throws(PKCS11Error)
            -> RawSignature
        {
            try await signOnSession(prehash: prehash, verdict: verdict)
        }
    #endif

    /// Acquires a session, signs on its thread and gives it back, with s brought to low s; the
    /// thread then works out `verdict` (recovery id 0) while the caller resumes.
    private func signOnSession(prehash: Digest32, verdict: RecoveryIdZeroVerdict) async throws(PKCS11Error)
        -> RawSignature
    {
        let session = try await pool.acquire()
        let expected = publicKey
        let result = await pool.onQueue(session) { [self] in
            let result = signWithRecovery(session: session, digest: prehash).map { raw in
                RawSignature(r: raw.r, s: ECDSA.normalize(r: raw.r, s: raw.s).s)
            }
            if case .success(let signature) = result {
                // Queued before the caller resumes, so it runs right after this job, before any
                // later holder's; it captures values only (never the signer, see `onQueue`).
                session.worker.submit {
                    verdict.settle(
                        ECDSA.recovers(expected, prehash: prehash, r: signature.r, s: signature.s, recoveryId: 0))
                }
            }
            return result
        }
        pool.checkIn(session)
        return try result.get()
    }

    /// The private key's handle as last looked up.
    private var currentKeyHandle: CK_OBJECT_HANDLE {
        CK_OBJECT_HANDLE(keyHandle.load(ordering: .acquiring))
    }

    /// Whether `result` failed in a way that reopening the session (and looking the key up
    /// again) may cure.
    private static func needsRetry(_ result: RawResult) -> Bool {
        guard case .failure(let error) = result, let code = error.returnCode else { return false }
        return SessionPool.recoverableCodes.contains(code)
    }

    /// Raw r‖s from the token, reopening the session and refreshing the key handle once after a
    /// recoverable failure. Runs on the session's thread.
    private func signWithRecovery(session: PooledSession, digest: Digest32) -> RawResult {
        let first = rawSign(session: session, key: currentKeyHandle, digest: digest)
        guard Self.needsRetry(first) else { return first }
        return retry(after: first, session: session, digest: digest)
    }

    /// After the recoverable failure `first`: drops the session, opens a new one, looks the key up
    /// again and signs once more. Runs on the session's thread.
    private func retry(after first: RawResult, session: PooledSession, digest: Digest32) -> RawResult {
        guard case .failure(let error) = first, let code = error.returnCode else { return first }
        abandon(session, after: code)
        let second: RawResult
        do throws(PKCS11Error) {
            session.handle = try token.module.openSession(slot: CK_SLOT_ID(token.slotID), readWrite: false)
            let locator: PKCS11KeyLocator = key.id.isEmpty ? .label(key.label) : .id(key.id)
            let refreshed = try token.module.serializingObjectAccess { () throws(PKCS11Error) in
                try token.uniquePrivateKey(session: session.handle, locator)
            }
            keyHandle.store(UInt(refreshed), ordering: .releasing)
            second = rawSign(session: session, key: refreshed, digest: digest)
        } catch {
            second = .failure(error)
        }
        if case .failure(let error) = second, let code = error.returnCode, SessionPool.recoverableCodes.contains(code) {
            abandon(session, after: code)
        }
        return second
    }

    /// Drops the session's handle after `code`. A session the token still knows (an operation
    /// left active, a stale key handle) is closed; a lost one is not, because its handle number
    /// may already belong to a session another thread has opened since.
    private func abandon(_ session: PooledSession, after code: PKCS11ReturnCode) {
        if !SessionPool.lostSessionCodes.contains(code) { token.module.closeSession(session.handle) }
        session.handle = CK_SESSION_HANDLE(CK_INVALID_HANDLE)
    }

    /// Test hook: closes every idle session behind the pool's back and leaves each with a handle
    /// no module hands out, as if the token had dropped the sessions. Returns how many.
    func loseIdleSessionsForTesting() -> Int {
        pool.loseIdleSessionsForTesting()
    }

    /// `C_SignInit(CKM_ECDSA)` + `C_Sign` over the 32 digest bytes. Runs on the session's thread.
    private func rawSign(session: PooledSession, key: CK_OBJECT_HANDLE, digest: Digest32) -> RawResult {
        let functions = token.module.functions
        var mechanism = CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_ECDSA), pParameter: nil, ulParameterLen: 0)
        let initRV = functions.signInit(session.handle, &mechanism, key)
        guard initRV == CKR_OK else {
            return .failure(.call(function: "C_SignInit", code: PKCS11ReturnCode(rawValue: initRV)))
        }
        var message = digest
        var r = Bytes32()
        var s = Bytes32()
        var length = CK_ULONG(64)
        let rv = message.withUnsafeMutableBytes { input in
            withUnsafeTemporaryAllocation(of: CK_BYTE.self, capacity: 64) { output in
                let rv = functions.sign(
                    session.handle, input.baseAddress?.assumingMemoryBound(to: CK_BYTE.self), CK_ULONG(input.count),
                    output.baseAddress, &length)
                if rv == CKR_OK && length == 64 {
                    let bytes = UnsafeRawBufferPointer(output)
                    r.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<32])) }
                    s.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[32..<64])) }
                }
                return rv
            }
        }
        if rv == CKR_BUFFER_TOO_SMALL {
            // The operation is still active; closing the session ends it.
            token.module.closeSession(session.handle)
            session.handle = CK_SESSION_HANDLE(CK_INVALID_HANDLE)
            return .failure(.unexpectedSignatureLength(Int(length)))
        }
        guard rv == CKR_OK else { return .failure(.call(function: "C_Sign", code: PKCS11ReturnCode(rawValue: rv))) }
        guard length == 64 else { return .failure(.unexpectedSignatureLength(Int(length))) }
        return .success(RawSignature(r: r, s: s))
    }

    /// The recovery id against the cached public key: the session thread's verdict on id 0 if it
    /// is in, else a trial of id 1, then id 0 (the verdict, or a trial of its own).
    private func recoverable(_ raw: RawSignature, prehash: Digest32, verdict: RecoveryIdZeroVerdict)
        throws(PKCS11Error) -> RecoverableSignature
    {
        let id: UInt8
        if verdict.value == true {
            id = 0
        } else if ECDSA.recovers(publicKey, prehash: prehash, r: raw.r, s: raw.s, recoveryId: 1) {
            id = 1
        } else if verdict.value ?? ECDSA.recovers(publicKey, prehash: prehash, r: raw.r, s: raw.s, recoveryId: 0) {
            id = 0
        } else {
            throw .signatureMismatch("the token's signature does not recover to \(address.checksummed)")
        }
        do {
            return try RecoverableSignature(r: raw.r, s: raw.s, recoveryId: id)
        } catch {
            throw .signatureMismatch("the token's signature is not a valid signature (\(error))")
        }
    }
}

/// Whether recovery id 0 recovers the signer's key, as the session's thread found after `C_Sign`;
/// nil until it has.
private final class RecoveryIdZeroVerdict: Sendable {
    /// 0: not yet known; 1: id 0 matches; 2: it does not.
    private let state = Atomic<UInt8>(0)

    /// The verdict, once settled.
    var value: Bool? {
        switch state.load(ordering: .acquiring) {
        case 1: true
        case 2: false
        default: nil
        }
    }

    /// Publishes the verdict.
    func settle(_ matches: Bool) { state.store(matches ? 1 : 2, ordering: .releasing) }
}
