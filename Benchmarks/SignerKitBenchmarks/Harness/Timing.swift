#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Nanoseconds from `CLOCK_MONOTONIC`. Only differences between two readings are meaningful.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Memory the optimizer must assume is observed by someone else (it is a public global of the executable).
/// `blackHole` folds values into it. Never read it for anything meaningful.
nonisolated(unsafe) public var benchmarkBlackHoleStorage: UInt8 = 0

/// Consumes `value` so the optimizer cannot treat the computation that produced it as dead.
///
/// It costs a call plus a store, so prefer accumulating inside the loop (`acc ^= digest[0]`) and calling
/// `blackHole(acc)` once after it.
@inline(never)
func blackHole<T>(_ value: T) {
    withUnsafeBytes(of: value) { bytes in
        if let first = bytes.first { benchmarkBlackHoleStorage ^= first }
    }
}

/// A heap buffer allocated once when a case is built and reused by every sample, so the timed loop
/// does not allocate. Freed when the last closure capturing it goes away.
final class ScratchBuffer<Element> {
    /// Start of the buffer; valid for the lifetime of `self`.
    let pointer: UnsafeMutablePointer<Element>
    /// Number of initialized elements.
    let count: Int

    /// Allocates `count` elements, all set to `value`.
    init(repeating value: Element, count: Int) {
        precondition(count > 0, "ScratchBuffer needs at least one element")
        self.count = count
        pointer = .allocate(capacity: count)
        pointer.initialize(repeating: value, count: count)
    }

    /// The buffer as a typed buffer pointer.
    var buffer: UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: pointer, count: count) }

    deinit {
        pointer.deinitialize(count: count)
        pointer.deallocate()
    }
}
