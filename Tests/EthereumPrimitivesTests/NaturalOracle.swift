import EthereumPrimitives

/// Arbitrary-size natural numbers in base 2^16, written as plainly as possible: the oracle the UInt256
/// arithmetic is checked against (an implementation that shares nothing with the limb code).
struct Natural: Equatable, Comparable, CustomStringConvertible {
    /// Base-2^16 digits, least significant first, no trailing zeros.
    private(set) var digits: [UInt32]

    init(digits: [UInt32]) {
        var digits = digits
        while digits.last == 0 { digits.removeLast() }
        self.digits = digits
    }

    init(_ value: UInt256) {
        let limbs = [value.limbs.0, value.limbs.1, value.limbs.2, value.limbs.3]
        self.init(digits: limbs.flatMap { limb in (0..<4).map { UInt32((limb >> (16 * UInt64($0))) & 0xFFFF) } })
    }

    /// The low 256 bits, and whether anything was above them.
    var truncated: (value: UInt256, fits: Bool) {
        var limbs: [UInt64] = [0, 0, 0, 0]
        for (i, digit) in digits.enumerated() where i < 16 { limbs[i / 4] |= UInt64(digit) << (16 * UInt64(i % 4)) }
        return (UInt256(limbs: (limbs[0], limbs[1], limbs[2], limbs[3])), digits.count <= 16)
    }

    static func + (a: Natural, b: Natural) -> Natural {
        var out: [UInt32] = []
        var carry: UInt32 = 0
        for i in 0..<max(a.digits.count, b.digits.count) {
            let sum = (i < a.digits.count ? a.digits[i] : 0) + (i < b.digits.count ? b.digits[i] : 0) + carry
            out.append(sum & 0xFFFF)
            carry = sum >> 16
        }
        out.append(carry)
        return Natural(digits: out)
    }

    /// `a - b` for `a >= b`.
    static func - (a: Natural, b: Natural) -> Natural {
        precondition(a >= b)
        var out: [UInt32] = []
        var borrow: UInt32 = 0
        for i in 0..<a.digits.count {
            let subtrahend = (i < b.digits.count ? b.digits[i] : 0) + borrow
            if a.digits[i] >= subtrahend {
                out.append(a.digits[i] - subtrahend)
                borrow = 0
            } else {
                out.append(a.digits[i] + 0x1_0000 - subtrahend)
                borrow = 1
            }
        }
        return Natural(digits: out)
    }

    static func * (a: Natural, b: Natural) -> Natural {
        var out = [UInt64](repeating: 0, count: a.digits.count + b.digits.count + 1)
        for (i, x) in a.digits.enumerated() {
            for (j, y) in b.digits.enumerated() { out[i + j] += UInt64(x) * UInt64(y) }
            // Normalise after each row so no column exceeds 64 bits.
            var carry: UInt64 = 0
            for k in out.indices {
                let total = out[k] + carry
                out[k] = total & 0xFFFF
                carry = total >> 16
            }
        }
        return Natural(digits: out.map { UInt32($0) })
    }

    static func < (a: Natural, b: Natural) -> Bool {
        if a.digits.count != b.digits.count { return a.digits.count < b.digits.count }
        for i in a.digits.indices.reversed() where a.digits[i] != b.digits[i] { return a.digits[i] < b.digits[i] }
        return false
    }

    /// 2^256.
    static let twoTo256 = Natural(digits: [UInt32](repeating: 0, count: 16) + [1])

    var description: String { "0x" + digits.reversed().map { String($0, radix: 16) }.joined(separator: "_") }
}
