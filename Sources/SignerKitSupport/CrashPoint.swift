#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The named steps of a transaction's life where a crash test may end the process, in order: the dispatcher's
/// pipeline, then the service's own durable steps. Crash tests (`Tests/SignerKitCommandsTests`) kill a service
/// at each in turn and check the chain after the restart.
package enum CrashStep: String, CaseIterable, Sendable {
    /// The service's audit trail holds the call's intent (nothing signed yet).
    case auditIntent = "audit-intent"
    /// Nonce, gas and fees are filled from the node.
    case filled
    /// The nonce is reserved in the journal.
    case reserved
    /// The key signed the transaction.
    case signed
    /// The signed transaction matched the request.
    case verified
    /// The transaction is in the journal (durable), not yet sent.
    case journalled
    /// The node accepted the transaction.
    case broadcast
    /// Its receipt is in: mined with status 1.
    case mined
    /// The batch's transactions are resolved as reported.
    case reported
    /// The service stored the answer under the idempotency key.
    case answerStored = "answer-stored"
}

/// A test hook that ends the process with `SIGKILL` (as `kill -9` would) when it reaches the step named by
/// `SIGNERKIT_CRASH_AT`. Compiled into debug builds only: a release build has no such hook, whatever its
/// environment.
package enum CrashPoint {
    #if DEBUG
        private static let target: CrashStep? = getenv("SIGNERKIT_CRASH_AT").flatMap {
            CrashStep(rawValue: String(cString: $0))
        }
    #endif

    /// Ends the process here when `step` is the one a crash test named.
    @inline(__always)
    package static func reached(_ step: CrashStep) {
        #if DEBUG
            if step == target { kill(getpid(), SIGKILL) }
        #endif
    }
}
