/// An unsigned 256-bit integer: ABI words, wei amounts, chain ids past 2^64.
///
/// Four 64-bit limbs, least significant first. Literals may use all 256 bits
/// (`let wei: UInt256 = 1_000_000_000_000_000_000_000`); `+ - * / %` trap on overflow and division by
/// zero like the standard library's integers, and `addingReportingOverflow(_:)` and its siblings report it.
public struct UInt256: Sendable, Hashable, Comparable {
    /// Limbs, least significant first.
    public var limbs: (UInt64, UInt64, UInt64, UInt64)

    /// Zero.
    public static let zero = UInt256(0)
    /// 2^256 - 1.
    public static let max = UInt256(limbs: (.max, .max, .max, .max))

    /// Builds from limbs, least significant first.
    @inlinable public init(limbs: (UInt64, UInt64, UInt64, UInt64)) { self.limbs = limbs }

    /// Widens a 64-bit value.
    @inlinable public init(_ value: UInt64) { limbs = (value, 0, 0, 0) }

    /// Interprets up to 32 big-endian bytes; returns `nil` when longer.
    public init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count <= 32 else { return nil }
        var l: [UInt64] = [0, 0, 0, 0]
        for (i, b) in bytes.reversed().enumerated() { l[i / 8] |= UInt64(b) << (8 * UInt64(i % 8)) }
        limbs = (l[0], l[1], l[2], l[3])
    }

    /// Interprets a 32-byte big-endian word.
    public init(word: Bytes32) {
        let lanes = word.storage
        limbs = (
            UInt64(bigEndian: lanes.3), UInt64(bigEndian: lanes.2), UInt64(bigEndian: lanes.1),
            UInt64(bigEndian: lanes.0)
        )
    }

    @inlinable subscript(limb index: Int) -> UInt64 {
        get {
            switch index {
            case 0: limbs.0
            case 1: limbs.1
            case 2: limbs.2
            default: limbs.3
            }
        }
        set {
            switch index {
            case 0: limbs.0 = newValue
            case 1: limbs.1 = newValue
            case 2: limbs.2 = newValue
            default: limbs.3 = newValue
            }
        }
    }

    /// True when zero.
    @inlinable public var isZero: Bool { limbs.0 | limbs.1 | limbs.2 | limbs.3 == 0 }

    /// Number of significant bits (0 for zero).
    public var bitWidth: Int {
        for i in stride(from: 3, through: 0, by: -1) where self[limb: i] != 0 {
            return i * 64 + (64 - self[limb: i].leadingZeroBitCount)
        }
        return 0
    }

    /// The value as `UInt64` when it fits.
    public var uint64: UInt64? { limbs.1 | limbs.2 | limbs.3 == 0 ? limbs.0 : nil }

    /// `self * factor + addend`, or `nil` on overflow past 2^256.
    @inlinable public func multipliedAdding(_ factor: UInt64, _ addend: UInt64) -> UInt256? {
        var result = UInt256.zero
        var carry = addend
        for i in 0..<4 {
            let (hi, lo) = self[limb: i].multipliedFullWidth(by: factor)
            let (sum, overflow) = lo.addingReportingOverflow(carry)
            result[limb: i] = sum
            carry = hi &+ (overflow ? 1 : 0)
        }
        return carry == 0 ? result : nil
    }

    /// Two's complement negation modulo 2^256.
    @inlinable public var twosComplement: UInt256 {
        var result = UInt256(limbs: (~limbs.0, ~limbs.1, ~limbs.2, ~limbs.3))
        var i = 0
        while i < 4 {
            let (sum, overflow) = result[limb: i].addingReportingOverflow(1)
            result[limb: i] = sum
            if !overflow { break }
            i += 1
        }
        return result
    }

    /// Divides by a small divisor, returning quotient and remainder.
    public func quotientAndRemainder(dividingBy divisor: UInt64) -> (quotient: UInt256, remainder: UInt64) {
        var quotient = UInt256.zero
        var remainder: UInt64 = 0
        for i in stride(from: 3, through: 0, by: -1) {
            let (q, r) = divisor.dividingFullWidth((remainder, self[limb: i]))
            quotient[limb: i] = q
            remainder = r
        }
        return (quotient, remainder)
    }

    /// The 32-byte big-endian word.
    @inlinable public var word: Bytes32 {
        // Byte i of the word is byte i in memory: each stored lane holds a limb in big-endian byte order.
        Bytes32(lanes: (limbs.3.bigEndian, limbs.2.bigEndian, limbs.1.bigEndian, limbs.0.bigEndian))
    }

    /// Big-endian bytes without leading zeros (empty for zero), as RLP wants integers.
    public var minimalBigEndianBytes: [UInt8] {
        let bytes = word.bytes
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return [] }
        return Array(bytes[first...])
    }

    /// Decimal digits.
    public var decimalString: String {
        if let small = uint64 { return String(small) }
        // Base 10^19 (the largest power of ten in a UInt64): one 256-bit division per 19 digits.
        let chunkBase: UInt64 = 10_000_000_000_000_000_000
        var chunks: [UInt64] = []  // least significant first
        var value = self
        while !value.isZero {
            let (quotient, remainder) = value.quotientAndRemainder(dividingBy: chunkBase)
            chunks.append(remainder)
            value = quotient
        }
        var text = String(chunks[chunks.count - 1])
        for chunk in chunks.dropLast().reversed() {
            let digits = String(chunk)
            text += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return text
    }

    /// `0x`-prefixed lower-case hex without leading zeros (`0x0` for zero), the JSON-RPC quantity form.
    public var hexQuantity: String {
        if isZero { return "0x0" }
        let hex = Hex.encode(minimalBigEndianBytes, prefix: false)
        return "0x" + (hex.hasPrefix("0") ? String(hex.dropFirst()) : hex)
    }

    /// Orders numerically.
    @inlinable public static func < (lhs: UInt256, rhs: UInt256) -> Bool {
        for i in stride(from: 3, through: 0, by: -1) where lhs[limb: i] != rhs[limb: i] {
            return lhs[limb: i] < rhs[limb: i]
        }
        return false
    }

    /// Compares numerically.
    @inlinable public static func == (lhs: UInt256, rhs: UInt256) -> Bool {
        lhs.limbs.0 == rhs.limbs.0 && lhs.limbs.1 == rhs.limbs.1 && lhs.limbs.2 == rhs.limbs.2
            && lhs.limbs.3 == rhs.limbs.3
    }

    /// Hashes the limbs.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(limbs.0)
        hasher.combine(limbs.1)
        hasher.combine(limbs.2)
        hasher.combine(limbs.3)
    }

    /// 2^exponent for exponent in 0..<256.
    public static func powerOfTwo(_ exponent: Int) -> UInt256 {
        precondition((0..<256).contains(exponent), "exponent out of range")
        var result = UInt256.zero
        result[limb: exponent / 64] = 1 << UInt64(exponent % 64)
        return result
    }
}

extension UInt256: CustomStringConvertible {
    /// Decimal digits.
    public var description: String { decimalString }
}
