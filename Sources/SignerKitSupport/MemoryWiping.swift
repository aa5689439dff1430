#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Zeroes memory that held a secret, in a way the optimiser may not remove.
package enum MemoryWiping {
    /// Zeroes `buffer` (`explicit_bzero`, or `memset_s` where that is the platform's call).
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Darwin)
            _ = memset_s(base, buffer.count, 0, buffer.count)
        #else
            explicit_bzero(base, buffer.count)
        #endif
    }
}
