/// Why a string is not strict 0x-hex.
public enum HexError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `0x` prefix is missing.
    case missingPrefix
    /// An odd number of hex digits.
    case oddLength
    /// A character that is not a hex digit, at this offset in the string.
    case invalidCharacter(offset: Int)
    /// Not the required number of bytes.
    case wrongLength(expected: Int, actual: Int)

    /// A short lower-case explanation.
    public var description: String {
        switch self {
        case .missingPrefix: "missing 0x prefix"
        case .oddLength: "odd number of hex digits"
        case .invalidCharacter(let offset): "invalid hex character at offset \(offset)"
        case .wrongLength(let expected, let actual): "expected \(expected) bytes, got \(actual)"
        }
    }
}

/// Strict hexadecimal: `0x` prefix required, an even number of digits, either letter case.
public enum Hex {
    @usableFromInline static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Value of one ASCII hex digit, or `nil`.
    @inlinable public static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c &- 0x30
        case 0x61...0x66: c &- 0x57
        case 0x41...0x46: c &- 0x37
        default: nil
        }
    }

    /// Decodes `0x`-prefixed hex with an even number of digits.
    public static func decode(_ text: some StringProtocol) throws(HexError) -> [UInt8] {
        try decode(utf8: text.utf8)
    }

    /// Decodes `0x`-prefixed hex given as UTF-8 bytes.
    @inlinable
    public static func decode<C: Collection<UInt8>>(utf8: C) throws(HexError) -> [UInt8] {
        var iterator = utf8.makeIterator()
        guard utf8.count >= 2, iterator.next() == 0x30, let x = iterator.next(), x == 0x78 || x == 0x58 else {
            throw .missingPrefix
        }
        let digits = utf8.count - 2
        guard digits % 2 == 0 else { throw .oddLength }
        var out = [UInt8]()
        out.reserveCapacity(digits / 2)
        var offset = 2
        while let c1 = iterator.next(), let c2 = iterator.next() {
            guard let hi = nibble(c1) else { throw .invalidCharacter(offset: offset) }
            guard let lo = nibble(c2) else { throw .invalidCharacter(offset: offset + 1) }
            out.append(hi << 4 | lo)
            offset += 2
        }
        return out
    }

    /// Decodes exactly `count` bytes of `0x`-hex.
    public static func decode(_ text: some StringProtocol, count: Int) throws(HexError) -> [UInt8] {
        let bytes = try decode(text)
        guard bytes.count == count else { throw .wrongLength(expected: count, actual: bytes.count) }
        return bytes
    }

    /// Encodes bytes as lower-case hex, `0x`-prefixed unless `prefix` is false.
    public static func encode(_ bytes: some Collection<UInt8>, prefix: Bool = true) -> String {
        let count = bytes.count * 2 + (prefix ? 2 : 0)
        return String(unsafeUninitializedCapacity: count) { buffer in
            var i = 0
            if prefix {
                buffer[0] = 0x30
                buffer[1] = 0x78
                i = 2
            }
            for b in bytes {
                buffer[i] = digits[Int(b >> 4)]
                buffer[i + 1] = digits[Int(b & 0x0f)]
                i += 2
            }
            return count
        }
    }
}

extension Bytes32 {
    /// Parses exactly 32 bytes of strict `0x`-hex.
    public init(hex: some StringProtocol) throws(HexError) {
        let bytes = try Hex.decode(hex, count: 32)
        self.init()
        withUnsafeMutableBytes { dst in
            for i in 0..<32 { dst[i] = bytes[i] }
        }
    }
}
