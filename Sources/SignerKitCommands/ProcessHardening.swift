#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps secrets out of core dumps: ``SignerKitCommandLine/main()`` calls ``disableCoreDumps()``
/// before it parses any argument, so every `signerkit` process that loads a key, password, PIN or
/// API key runs with core dumps off (and one that cannot turn them off exits 65 instead).
///
/// It sets `RLIMIT_CORE` to 0 (soft and hard, so nothing in the process can raise it again) and,
/// on Linux, `prctl(PR_SET_DUMPABLE, 0)`, which also stops core dumps through a `core_pattern` pipe
/// (where the limit does not apply) and keeps other processes of the same user from attaching to
/// this one or reading its memory through `/proc`.
///
/// The in-process entry point (``SignerKitCommandLine/run(_:io:)``) leaves the host process alone:
/// lowering a hard limit cannot be undone without `CAP_SYS_RESOURCE`, which is the host's decision
/// (an application embedding SignerKit calls this itself if it wants the same).
enum ProcessHardening {
    /// Disables core dumps for this process.
    ///
    /// - Throws: 65 `cannot disable core dumps: …` when the kernel refuses (a key is then not loaded).
    static func disableCoreDumps() throws(CommandFailure) {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_CORE.rawValue)
        #else
            let resource = RLIMIT_CORE
        #endif
        guard setrlimit(resource, &limit) == 0 else {
            throw .invalidInput(
                "cannot disable core dumps: setrlimit(RLIMIT_CORE): \(String(cString: strerror(errno)))")
        }
        #if os(Linux)
            guard prctl(setDumpable, 0) == 0 else {
                throw .invalidInput(
                    "cannot disable core dumps: prctl(PR_SET_DUMPABLE): \(String(cString: strerror(errno)))")
            }
        #endif
    }

    #if os(Linux)
        /// `PR_SET_DUMPABLE` (linux/prctl.h).
        static let setDumpable: Int32 = 4

        /// `prctl(2)` is variadic in C, so Swift does not import it; it is called through its
        /// address with the two integer arguments the dumpable options take (the Linux calling
        /// conventions pass them like named ones). `-1` with `ENOSYS` if libc has no `prctl`.
        private static func prctl(_ option: Int32, _ argument: UInt) -> Int32 {
            typealias Function = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
            guard let libc = dlopen(nil, RTLD_NOW), let symbol = dlsym(libc, "prctl") else {
                errno = ENOSYS
                return -1
            }
            return unsafeBitCast(symbol, to: Function.self)(option, argument, 0, 0, 0)
        }
    #endif
}
