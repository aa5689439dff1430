import CGcrypt
import CGcryptShim
import SignerKitSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// libgcrypt set-up and the few primitives SignerKit takes from it: secure memory, strong
/// randomness and wiping.
///
/// Everything goes through ``ensureInitialized()``, which runs the libgcrypt initialisation
/// sequence exactly once per process.
package enum Gcrypt {
    /// Size of the locked secure-memory pool requested at start-up. libgcrypt extends the pool
    /// automatically (``autoExpandChunk``) if keys outgrow it.
    static let secureMemoryPoolSize: UInt32 = 64 * 1024

    /// Chunk size for automatic extension of the secure-memory pool.
    static let autoExpandChunk: UInt32 = 64 * 1024

    /// Runs the initialisation sequence once. Swift runs the initializer of a global or static
    /// `let` exactly once, lazily and thread-safely (`swift_once`), so concurrent first uses from
    /// many tasks are fine.
    private static let initialized: Bool = {
        guard gcry_check_version(GCRYPT_VERSION) != nil else {
            fatalError("SignerKit needs libgcrypt \(GCRYPT_VERSION) or newer at run time")
        }
        // Another component of the process may already have initialised libgcrypt; its
        // configuration then stands (secure memory can only be set up once).
        if control(GCRYCTL_INITIALIZATION_FINISHED_P) != 0 { return true }
        // Without CAP_IPC_LOCK or enough RLIMIT_MEMLOCK, mlock fails and libgcrypt prints
        // "Warning: using insecure memory!". The pool still works (it is just not locked), so an
        // unprivileged process silences the warning rather than failing.
        _ = control(GCRYCTL_DISABLE_SECMEM_WARN)
        _ = control(GCRYCTL_INIT_SECMEM, secureMemoryPoolSize)
        _ = control(GCRYCTL_AUTO_EXPAND_SECMEM, autoExpandChunk)
        _ = control(GCRYCTL_INITIALIZATION_FINISHED)
        guard control(GCRYCTL_INITIALIZATION_FINISHED_P) != 0 else {
            fatalError("libgcrypt initialisation did not complete")
        }
        return true
    }()

    /// Makes sure libgcrypt is initialised; cheap after the first call.
    @inline(__always) package static func ensureInitialized() {
        _ = initialized
    }

    // MARK: gcry_control

    /// `gcry_control` through the fixed-argument C wrappers of `CGcryptShim` (Swift cannot call variadic C).
    private static func control(_ command: gcry_ctl_cmds, _ argument: UInt32? = nil) -> UInt32 {
        let code = Int32(bitPattern: command.rawValue)
        if let argument { return sk_gcry_control_uint(code, argument) }
        return sk_gcry_control0(code)
    }

    // MARK: primitives

    /// Allocates `count` bytes (at least 1) from the secure-memory pool; traps if libgcrypt cannot
    /// provide it, like any other Swift allocation failure.
    package static func allocateSecure(_ count: Int) -> UnsafeMutableRawPointer {
        ensureInitialized()
        guard let pointer = gcry_malloc_secure(max(count, 1)) else {
            fatalError("libgcrypt secure memory exhausted")
        }
        return pointer
    }

    /// True when `pointer` lies in libgcrypt secure memory.
    package static func isSecure(_ pointer: UnsafeRawPointer) -> Bool {
        gcry_is_secure(pointer) != 0
    }

    /// Wipes and releases a block from ``allocateSecure(_:)``.
    package static func freeSecure(_ pointer: UnsafeMutableRawPointer, count: Int) {
        wipe(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        gcry_free(pointer)  // libgcrypt wipes secure blocks again on release
    }

    /// Fills `buffer` with random bytes. `veryStrong` selects `GCRY_VERY_STRONG_RANDOM`
    /// (long-term keys), otherwise `GCRY_STRONG_RANDOM`.
    package static func randomize(_ buffer: UnsafeMutableRawBufferPointer, veryStrong: Bool) {
        ensureInitialized()
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        gcry_randomize(base, buffer.count, veryStrong ? GCRY_VERY_STRONG_RANDOM : GCRY_STRONG_RANDOM)
    }

    /// Zeroes `buffer` in a way the optimiser may not remove (``MemoryWiping``).
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) { MemoryWiping.wipe(buffer) }
}
