import PKCS11Signer
import Synchronization

/// Retrying the errors a token gives while another process writes it.
///
/// SoftHSM2 keeps each token in files that every process re-reads when they change; a process that
/// reads them while another rewrites them sees the token vanish (`no initialised token`), its info
/// fail (`C_GetTokenInfo: CKR_GENERAL_ERROR`) or its PIN look uninitialised
/// (`C_Login: CKR_USER_PIN_NOT_INITIALIZED`), for a few milliseconds. Such errors are retried
/// ``transientAttempts`` times with growing pauses (about two seconds in all); nothing else is: a
/// wrong or locked PIN (`CKR_PIN_INCORRECT`, `CKR_PIN_LOCKED`) never is, so no PIN attempt is
/// spent twice, and neither is a module that fails to load or initialise.
extension PKCS11Options {
    /// Whether a transient failure to open a token may reinitialise the module so that it reads its
    /// tokens again: set by ``SignerKitCommandLine/main()``, where one command has the process to
    /// itself. In-process callers of ``SignerKitCommandLine/run(_:io:)`` may run commands
    /// concurrently, so they only retry.
    static let reinitializesModule = Atomic<Bool>(false)

    /// Attempts per operation (the first one included).
    static let transientAttempts = 8

    /// Return codes a busy file-backed token gives transiently.
    static let transientCodes: Set<PKCS11ReturnCode> = [
        .generalError, PKCS11ReturnCode(rawValue: 0x6) /* CKR_FUNCTION_FAILED */, .deviceError,
        PKCS11ReturnCode(rawValue: 0x31) /* CKR_DEVICE_MEMORY */, .deviceRemoved, .tokenNotPresent,
        .tokenNotRecognized, PKCS11ReturnCode(rawValue: 0x102) /* CKR_USER_PIN_NOT_INITIALIZED */,
        .sessionHandleInvalid, .sessionClosed,
    ]

    /// Whether `error` may go away when tried again.
    static func isTransient(_ error: PKCS11Error) -> Bool {
        switch error {
        case .tokenNotFound: return true
        case .call(let function, let code):
            return function != "C_Initialize" && function != "C_GetFunctionList" && transientCodes.contains(code)
        default: return false
        }
    }

    /// Why an operation failed after ``retryingTransientErrors(_:)``.
    struct AttemptsFailed: Error {
        /// The last error.
        let error: PKCS11Error
        /// Whether every attempt failed transiently.
        let exhausted: Bool
        /// Whether some attempt found the token (so it exists, and only reading it failed).
        let tokenSeen: Bool
    }

    /// Runs `body` until it succeeds, fails with a non-transient error, or ``transientAttempts``
    /// attempts have failed transiently.
    ///
    /// `beforeRetry` runs before each further attempt (``Session/open()`` reinitialises the module
    /// there: SoftHSM2 reads a token's files again only then).
    static func retryingTransientErrors<R>(
        _ body: () throws(PKCS11Error) -> R, beforeRetry: () -> Void = {}
    ) async throws(AttemptsFailed) -> R {
        var tokenSeen = false
        var pause = 25
        var attempt = 1
        while true {
            do {
                return try body()
            } catch {
                if case .tokenNotFound = error {} else { tokenSeen = true }
                guard isTransient(error) else {
                    throw AttemptsFailed(error: error, exhausted: false, tokenSeen: tokenSeen)
                }
                guard attempt < transientAttempts else {
                    throw AttemptsFailed(error: error, exhausted: true, tokenSeen: tokenSeen)
                }
                try? await Task.sleep(for: .milliseconds(pause + Int.random(in: 0...pause)))
                pause = min(pause * 2, 400)
                attempt += 1
                beforeRetry()
            }
        }
    }

    /// The one-line failure: the error, and when every attempt failed transiently on a token that was
    /// seen, that it stayed busy (instead of `no initialised token`).
    static func failure(_ failed: AttemptsFailed) -> CommandFailure {
        guard failed.exhausted, failed.tokenSeen else { return failure(failed.error) }
        let busy =
            "the token stayed busy or unreadable through \(transientAttempts) attempts (another process may be"
            + " writing it); try again"
        if case .tokenNotFound(let selector) = failed.error {
            return .invalidInput("PKCS#11 token with \(selector) could not be read: \(busy)")
        }
        return .invalidInput("\(failure(failed.error).message): \(busy)")
    }

    /// ``perform(_:)`` with ``retryingTransientErrors(_:)``.
    static func performRetrying<R>(_ body: () throws(PKCS11Error) -> R) async throws(CommandFailure) -> R {
        do { return try await retryingTransientErrors(body) } catch { throw failure(error) }
    }
}
