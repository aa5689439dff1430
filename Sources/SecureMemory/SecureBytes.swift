#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A fixed-size buffer of secret bytes in libgcrypt secure memory (locked when the process may
/// lock memory), zeroed when wiped and when released.
///
/// The contents are fixed at initialisation and only read afterwards, except for ``wipe()``,
/// which zeroes them. A read-write lock orders reads against `wipe()`: any number of readers run
/// concurrently, and a wipe waits for them and is seen by every later read.
///
/// The bytes never appear in `description`, `debugDescription` or `dump` output.
public final class SecureBytes: @unchecked Sendable {
    // @unchecked Sendable: `pointer` and `count` never change after init; the bytes behind
    // `pointer` are written only during init (before the object is shared) and by `wipe()`,
    // which takes the write lock, while every read takes the read lock.
    private let pointer: UnsafeMutableRawPointer
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    /// Number of bytes.
    public let count: Int

    /// Allocates `count` bytes of secure memory and lets `initializer` fill them in place.
    ///
    /// The buffer starts zeroed. If `initializer` throws, whatever it wrote is wiped and the
    /// error is rethrown. Traps if secure memory cannot be allocated.
    public init<E: Error>(
        count: Int,
        initializingWith initializer: (UnsafeMutableRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        precondition(count >= 0, "SecureBytes count must not be negative")
        let pointer = Gcrypt.allocateSecure(count)
        let buffer = UnsafeMutableRawBufferPointer(start: pointer, count: count)
        Gcrypt.wipe(buffer)
        do {
            try initializer(buffer)
        } catch {
            Gcrypt.freeSecure(pointer, count: count)
            throw error
        }
        self.pointer = pointer
        self.count = count
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    /// Allocates `count` zero bytes of secure memory.
    public convenience init(zeroedCount count: Int) {
        self.init(count: count) { (_: UnsafeMutableRawBufferPointer) in }
    }

    /// Moves `bytes` into secure memory and overwrites the caller's array with zeros.
    ///
    /// Only the array's own storage is wiped: if other copies of the array share that storage
    /// (copy-on-write), the wipe lands on a fresh copy and the shared storage keeps the bytes.
    public convenience init(wiping bytes: inout [UInt8]) {
        self.init(count: bytes.count) { (buffer: UnsafeMutableRawBufferPointer) in
            bytes.withUnsafeMutableBytes { source in
                if let base = source.baseAddress {
                    buffer.copyMemory(from: UnsafeRawBufferPointer(start: base, count: source.count))
                }
                Gcrypt.wipe(source)
            }
        }
    }

    /// Copies `other`'s bytes into a fresh secure buffer.
    public convenience init(copying other: SecureBytes) {
        self.init(count: other.count) { (buffer: UnsafeMutableRawBufferPointer) in
            other.withUnsafeBytes { source in
                if let base = source.baseAddress {
                    buffer.copyMemory(from: UnsafeRawBufferPointer(start: base, count: source.count))
                }
            }
        }
    }

    deinit {
        Gcrypt.freeSecure(pointer, count: count)
        pthread_rwlock_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Calls `body` with a read-only view of the bytes.
    ///
    /// - Warning: The view is valid only during `body`. Do not copy the bytes into ordinary
    ///   memory (arrays, strings) and do not call ``wipe()`` on the same object from inside
    ///   `body` (that deadlocks).
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Zeroes the bytes now, rather than when the object is released. Later reads see zeros.
    public func wipe() {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        Gcrypt.wipe(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Test hook: whether the buffer lies in libgcrypt secure memory.
    package var isInSecureMemory: Bool { Gcrypt.isSecure(pointer) }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A redacted summary: `SecureBytes(32 bytes, redacted)`.
    public var description: String { "SecureBytes(\(count) bytes, redacted)" }

    /// The same redacted summary as ``description``.
    public var debugDescription: String { description }

    /// A mirror that shows only the byte count.
    public var customMirror: Mirror {
        Mirror(self, children: ["count": count, "bytes": "redacted"], displayStyle: .class)
    }
}
