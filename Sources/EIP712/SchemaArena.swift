#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of a compiled schema: struct names, then each struct's `encodeType` member list
/// `Name(type name,…)` back to back. Every name and type string of the schema is a ``Span`` of it.
///
/// Written once while compiling (``Writer``), immutable afterwards, freed with the last schema copy.
final class SchemaArena: @unchecked Sendable {
    /// A byte range of the arena.
    struct Span: Sendable {
        var start: Int32
        var end: Int32
        var count: Int { Int(end - start) }
    }

    let base: UnsafeMutablePointer<UInt8>
    let count: Int

    init(taking base: UnsafeMutablePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { base.deallocate() }

    /// The whole arena; valid while this object is alive.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always) func slice(_ span: Span) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + Int(span.start), count: span.count)
    }

    func text(_ span: Span) -> String { slice(span).text }

    /// True when `span` holds exactly `bytes`.
    @inline(__always) func equals(_ span: Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        Self.equal(slice(span), bytes)
    }

    @inline(__always) static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return true }
        return memcmp(x, y, a.count) == 0
    }

    /// Byte-wise (= code point) order of two slices.
    static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.lexicographicallyPrecedes(b)
    }

    /// Appends bytes to a growing buffer; ``finish()`` hands the buffer to a ``SchemaArena``.
    struct Writer {
        private var base: UnsafeMutablePointer<UInt8>
        private var capacity: Int
        private(set) var count = 0

        init(capacity: Int) {
            self.capacity = max(64, capacity)
            base = .allocate(capacity: self.capacity)
        }

        /// The bytes written so far; valid until the next append.
        @inline(__always) func slice(_ span: Span) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: base + Int(span.start), count: span.count)
        }

        @inline(__always) private mutating func reserve(_ extra: Int) {
            if count + extra > capacity { grow(extra) }
        }

        private mutating func grow(_ extra: Int) {
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + extra))
            bigger.initialize(from: base, count: count)
            base.deallocate()
            base = bigger
            capacity = max(capacity * 2, count + extra)
        }

        @discardableResult @inline(__always)
        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Span {
            reserve(bytes.count)
            let start = count
            if let source = bytes.baseAddress { (base + count).initialize(from: source, count: bytes.count) }
            count += bytes.count
            return Span(start: Int32(start), end: Int32(count))
        }

        /// Appends a copy of an earlier span.
        @discardableResult
        mutating func append(copyOf span: Span) -> Span {
            reserve(span.count)
            let start = count
            (base + count).initialize(from: base + Int(span.start), count: span.count)
            count += span.count
            return Span(start: Int32(start), end: Int32(count))
        }

        @inline(__always) mutating func append(byte: UInt8) {
            reserve(1)
            (base + count).initialize(to: byte)
            count += 1
        }

        /// Frees the buffer (the compile failed).
        func discard() { base.deallocate() }

        /// The finished arena; the writer must not be used afterwards.
        func finish() -> SchemaArena { SchemaArena(taking: base, count: count) }
    }
}
