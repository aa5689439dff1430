/// Exactly 32 bytes: a Keccak-256 digest, an ABI word, a signature scalar.
///
/// Stored inline (no heap allocation), so hashing paths can pass digests around freely.
public struct Bytes32: Sendable, Hashable {
    @usableFromInline internal var storage: (UInt64, UInt64, UInt64, UInt64)

    /// All-zero bytes.
    public static let zero = Bytes32()

    /// All-zero bytes.
    @inlinable public init() { storage = (0, 0, 0, 0) }

    /// The bytes as four 8-byte lanes in memory order.
    @inlinable init(lanes: (UInt64, UInt64, UInt64, UInt64)) { storage = lanes }

    /// Copies exactly 32 bytes; returns `nil` for any other length.
    @inlinable public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        self.init()
        withUnsafeMutableBytes { dst in
            for (i, b) in bytes.enumerated() { dst[i] = b }
        }
    }

    /// Builds the value by filling its 32 bytes in place.
    @inlinable public init(unsafeUninitialized fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        self.init()
        try withUnsafeMutableBytes(fill)
    }

    /// Calls `body` with a view of the 32 bytes.
    @inlinable public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage, body)
    }

    /// Calls `body` with a mutable view of the 32 bytes.
    @inlinable public mutating func withUnsafeMutableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws -> R
    ) rethrows -> R {
        try Swift.withUnsafeMutableBytes(of: &storage, body)
    }

    /// The bytes as an array.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Lower-case 0x-prefixed hex.
    public var hex: String { Hex.encode(bytes) }

    /// Byte at `index` (0..<32).
    @inlinable public subscript(index: Int) -> UInt8 {
        get { withUnsafeBytes { $0[index] } }
        set { withUnsafeMutableBytes { $0[index] = newValue } }
    }

    /// Compares bytes (the tuple itself is not `Equatable`).
    @inlinable public static func == (lhs: Bytes32, rhs: Bytes32) -> Bool {
        lhs.storage.0 == rhs.storage.0 && lhs.storage.1 == rhs.storage.1 && lhs.storage.2 == rhs.storage.2
            && lhs.storage.3 == rhs.storage.3
    }

    /// Hashes the bytes.
    @inlinable public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.0)
        hasher.combine(storage.1)
        hasher.combine(storage.2)
        hasher.combine(storage.3)
    }
}

extension Bytes32: CustomStringConvertible {
    /// Lower-case 0x-prefixed hex.
    public var description: String { hex }
}

/// A 32-byte message digest handed to a signer (the "prehash").
public typealias Digest32 = Bytes32
