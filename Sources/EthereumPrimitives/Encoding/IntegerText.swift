/// Why a value is not an integer of the required kind.
public enum IntegerTextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Empty text.
    case empty
    /// Not a decimal or 0x-hex integer (e.g. a fraction, exponent, or stray character).
    case notAnInteger(String)
    /// A negative value where only unsigned values are allowed.
    case negative(String)
    /// The value does not fit the type, e.g. `uint8`.
    case outOfRange(String, type: String)

    /// A short lower-case explanation.
    public var description: String {
        switch self {
        case .empty: "empty integer"
        case .notAnInteger(let text): "not an integer: \(text)"
        case .negative(let text): "negative value \(text) for an unsigned type"
        case .outOfRange(let text, let type): "value \(text) out of range for \(type)"
        }
    }
}

/// An integer read from JSON text: a sign and a 256-bit magnitude.
public struct SignedMagnitude: Sendable, Equatable {
    /// True for values below zero.
    public var isNegative: Bool
    /// Absolute value.
    public var magnitude: UInt256

    /// Parses a JSON number literal, a decimal string (possibly negative), or a `0x`-hex string
    /// (either letter case, any zero padding). Fractions and exponents are refused.
    public init(text: some StringProtocol) throws(IntegerTextError) {
        var utf8 = Substring(text).utf8[...]
        guard !utf8.isEmpty else { throw .empty }
        var negative = false
        if utf8.first == UInt8(ascii: "-") {
            negative = true
            utf8 = utf8.dropFirst()
        }
        guard !utf8.isEmpty else { throw .notAnInteger(String(text)) }
        var value = UInt256.zero
        let isHex = utf8.count >= 2 && utf8.first == UInt8(ascii: "0")
            && (utf8.dropFirst().first == UInt8(ascii: "x") || utf8.dropFirst().first == UInt8(ascii: "X"))
        if isHex {
            let digits = utf8.dropFirst(2)
            guard !digits.isEmpty else { throw .notAnInteger(String(text)) }
            for c in digits {
                guard let n = Hex.nibble(c) else { throw .notAnInteger(String(text)) }
                guard let next = value.multipliedAdding(16, UInt64(n)) else {
                    throw .outOfRange(String(text), type: "uint256")
                }
                value = next
            }
        } else {
            for c in utf8 {
                guard c >= 0x30 && c <= 0x39 else { throw .notAnInteger(String(text)) }
                guard let next = value.multipliedAdding(10, UInt64(c - 0x30)) else {
                    throw .outOfRange(String(text), type: "uint256")
                }
                value = next
            }
        }
        isNegative = negative && !value.isZero
        magnitude = value
    }

    /// The value as a `uintN` ABI word, range-checked (`bits` in 8...256, multiple of 8).
    public func uintWord(bits: Int, text: @autoclosure () -> String) throws(IntegerTextError) -> Bytes32 {
        guard !isNegative else { throw .negative(text()) }
        guard magnitude.bitWidth <= bits else { throw .outOfRange(text(), type: "uint\(bits)") }
        return magnitude.word
    }

    /// The value as an `intN` ABI word in two's complement, range-checked.
    public func intWord(bits: Int, text: @autoclosure () -> String) throws(IntegerTextError) -> Bytes32 {
        if isNegative {
            // -2^(bits-1) is the smallest value: magnitude ≤ 2^(bits-1).
            let limit = UInt256.powerOfTwo(bits - 1)
            guard magnitude <= limit else { throw .outOfRange(text(), type: "int\(bits)") }
            return magnitude.twosComplement.word
        }
        guard magnitude.bitWidth <= bits - 1 else { throw .outOfRange(text(), type: "int\(bits)") }
        return magnitude.word
    }
}

extension UInt256 {
    /// Parses a non-negative decimal or `0x`-hex integer.
    public init(text: some StringProtocol) throws(IntegerTextError) {
        let parsed = try SignedMagnitude(text: text)
        guard !parsed.isNegative else { throw .negative(String(text)) }
        self = parsed.magnitude
    }
}
