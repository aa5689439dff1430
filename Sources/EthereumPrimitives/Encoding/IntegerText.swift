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
        case .notAnInteger(let text): "not an integer: \(EchoedText.abbreviated(text))"
        case .negative(let text): "negative value \(EchoedText.abbreviated(text)) for an unsigned type"
        case .outOfRange(let text, let type): "value \(EchoedText.abbreviated(text)) out of range for \(type)"
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
        var owned = String(text)
        let result: Result<SignedMagnitude, IntegerTextError> = owned.withUTF8 { buffer in
            do throws(IntegerTextError) { return .success(try SignedMagnitude(utf8: buffer)) } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Parses the same forms as ``init(text:)`` from UTF-8 bytes.
    @inlinable
    public init(utf8: UnsafeBufferPointer<UInt8>) throws(IntegerTextError) {
        guard !utf8.isEmpty else { throw .empty }
        var i = 0
        var negative = false
        if utf8[0] == UInt8(ascii: "-") {
            negative = true
            i = 1
        }
        guard i < utf8.count else { throw .notAnInteger(String(decoding: utf8, as: UTF8.self)) }
        var value = UInt256.zero
        if utf8.count - i >= 2 && utf8[i] == UInt8(ascii: "0") && (utf8[i + 1] | 0x20) == UInt8(ascii: "x") {
            i += 2
            guard i < utf8.count else { throw .notAnInteger(String(decoding: utf8, as: UTF8.self)) }
            while i < utf8.count {
                guard let n = Hex.nibble(utf8[i]) else { throw .notAnInteger(String(decoding: utf8, as: UTF8.self)) }
                guard value.limbs.3 >> 60 == 0 else {
                    throw .outOfRange(String(decoding: utf8, as: UTF8.self), type: "uint256")
                }
                value.limbs = (
                    value.limbs.0 << 4 | UInt64(n), value.limbs.1 << 4 | value.limbs.0 >> 60,
                    value.limbs.2 << 4 | value.limbs.1 >> 60, value.limbs.3 << 4 | value.limbs.2 >> 60
                )
                i += 1
            }
        } else {
            // Up to 19 digits accumulate in one UInt64 before touching the 256-bit value.
            while i < utf8.count {
                var chunk: UInt64 = 0
                var scale: UInt64 = 1
                var taken = 0
                while i < utf8.count && taken < 19 {
                    let d = utf8[i] &- 0x30
                    guard d < 10 else { throw .notAnInteger(String(decoding: utf8, as: UTF8.self)) }
                    chunk = chunk &* 10 &+ UInt64(d)
                    scale &*= 10
                    taken += 1
                    i += 1
                }
                if value.isZero {
                    value = UInt256(chunk)
                } else {
                    guard let next = value.multipliedAdding(scale, chunk) else {
                        throw .outOfRange(String(decoding: utf8, as: UTF8.self), type: "uint256")
                    }
                    value = next
                }
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
