/// A value in Recursive Length Prefix form (Ethereum Yellow Paper, appendix B):
/// either a byte string or a list of items.
///
/// Build items with the cases directly, with the `uint` builders and ``string(_:)``,
/// or with an array literal for a list:
///
/// ```swift
/// let item: RLPItem = [.string("cat"), .string("dog")]
/// RLP.encode(item)  // c8 83 636174 83 646f67
/// ```
public enum RLPItem: Sendable, Equatable, Hashable {
    /// A byte string.
    case bytes([UInt8])
    /// A list of items.
    case list([RLPItem])
}

extension RLPItem: ExpressibleByArrayLiteral {
    /// A list of the given items.
    public init(arrayLiteral elements: RLPItem...) {
        self = .list(elements)
    }
}

extension RLPItem {
    /// The empty byte string (encodes as `0x80`; also the integer zero).
    public static let empty = RLPItem.bytes([])

    /// The empty list (encodes as `0xc0`).
    public static let emptyList = RLPItem.list([])

    /// An unsigned integer as its minimal big-endian bytes; zero is the empty string.
    ///
    /// `RLPItem.uint(0)` encodes as `0x80`, `15` as `0x0f`, `1024` as `0x820400`.
    public static func uint(_ value: UInt64) -> RLPItem {
        guard value != 0 else { return .bytes([]) }
        let count = 8 - value.leadingZeroBitCount / 8
        var out = [UInt8](repeating: 0, count: count)
        var v = value
        for i in stride(from: count - 1, through: 0, by: -1) {
            out[i] = UInt8(truncatingIfNeeded: v)
            v >>= 8
        }
        return .bytes(out)
    }

    /// An unsigned integer given as big-endian bytes of any width (e.g. a 32-byte word);
    /// leading zero bytes are stripped, so an all-zero input is the empty string.
    public static func uint(bigEndian bytes: some Collection<UInt8>) -> RLPItem {
        .bytes(Array(bytes.drop(while: { $0 == 0 })))
    }

    /// A 256-bit unsigned integer as its minimal big-endian bytes; zero is the empty string.
    public static func uint256(_ value: UInt256) -> RLPItem {
        .bytes(value.minimalBigEndianBytes)
    }

    /// The UTF-8 bytes of `text` as a byte string.
    public static func string(_ text: String) -> RLPItem {
        .bytes(Array(text.utf8))
    }

    /// The elements of a list.
    ///
    /// - Throws: ``RLPError/expectedList`` for a byte string.
    public func asList() throws(RLPError) -> [RLPItem] {
        guard case .list(let items) = self else { throw .expectedList }
        return items
    }

    /// The bytes of a byte string.
    ///
    /// - Throws: ``RLPError/expectedBytes`` for a list.
    public func asBytes() throws(RLPError) -> [UInt8] {
        guard case .bytes(let b) = self else { throw .expectedBytes }
        return b
    }

    /// The minimal big-endian bytes of a canonical unsigned integer (empty for zero).
    ///
    /// - Throws: ``RLPError/expectedBytes`` for a list, ``RLPError/nonCanonicalInteger`` if the
    ///   first byte is zero (zero must be the empty string, other values have no leading zeros).
    public func uintBytes() throws(RLPError) -> [UInt8] {
        guard case .bytes(let b) = self else { throw .expectedBytes }
        if let first = b.first, first == 0 { throw .nonCanonicalInteger }
        return b
    }

    /// The minimal big-endian bytes of a canonical unsigned integer of at most `maxBytes` bytes.
    ///
    /// - Throws: as ``uintBytes()``, plus ``RLPError/integerOverflow(maxBytes:)`` when longer.
    public func uintBytes(maxBytes: Int) throws(RLPError) -> [UInt8] {
        let b = try uintBytes()
        guard b.count <= maxBytes else { throw .integerOverflow(maxBytes: maxBytes) }
        return b
    }

    /// A canonical unsigned integer that fits in 64 bits.
    ///
    /// - Throws: as ``uintBytes()``, plus ``RLPError/integerOverflow(maxBytes:)`` above 8 bytes.
    public func uint64() throws(RLPError) -> UInt64 {
        let b = try uintBytes(maxBytes: 8)
        var v: UInt64 = 0
        for byte in b { v = v << 8 | UInt64(byte) }
        return v
    }

    /// A canonical unsigned integer that fits in 256 bits.
    ///
    /// - Throws: as ``uintBytes()``, plus ``RLPError/integerOverflow(maxBytes:)`` above 32 bytes.
    public func uint256() throws(RLPError) -> UInt256 {
        let b = try uintBytes(maxBytes: 32)
        guard let value = UInt256(bigEndian: b) else { throw .integerOverflow(maxBytes: 32) }
        return value
    }

    /// The bytes of a byte string decoded as UTF-8, or `nil` if it is a list or not valid UTF-8.
    public var stringValue: String? {
        guard case .bytes(let b) = self else { return nil }
        return String(validating: b, as: UTF8.self)
    }
}
