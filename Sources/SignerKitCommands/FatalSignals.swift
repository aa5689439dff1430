#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes fatal signals fatal: ``SignerKitCommandLine/main()`` calls ``install(environment:)`` so that SIGABRT,
/// SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP and SIGQUIT — from a real fault or sent from outside, as systemd's
/// watchdog sends SIGABRT — end the process with that signal after one short line on stderr.
///
/// Swift's runtime installs a crash reporter for these signals that writes registers and the memory around
/// them (which may hold a key) to stderr, and for a signal sent from outside returns to the interrupted code, so
/// a service went on serving after `kill -ABRT`. The handler here writes a constant note (nothing of the process's
/// memory), restores the default action and raises the signal again. With `SIGNERKIT_CRASH_REPORT=full` in the
/// environment it is not installed and Swift's reporter runs (for debugging only: its report holds memory
/// contents, and an outside signal then does not end the process).
enum FatalSignals {
    /// The signals handled.
    static let signals: [Int32] = [SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGQUIT]

    /// The line written before the process ends (a static string: writing it allocates nothing).
    static let note: StaticString =
        "signerkit: fatal signal, exiting (set SIGNERKIT_CRASH_REPORT=full for a full report when debugging)\n"

    /// Installs the handler for every signal in ``signals`` unless `environment` asks for the full report.
    static func install(environment: [String: String]) {
        guard environment["SIGNERKIT_CRASH_REPORT"] != "full" else { return }
        // Async-signal-safe only: write(2), signal(2), raise(3).
        let handler: @convention(c) (Int32) -> Void = { number in
            FatalSignals.note.withUTF8Buffer { _ = write(2, $0.baseAddress, $0.count) }
            _ = signal(number, SIG_DFL)
            // Blocked while this handler runs, the signal is delivered (with the default action) as it returns.
            raise(number)
        }
        for number in signals { signal(number, handler) }
    }
}
