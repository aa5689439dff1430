// Arithmetic on UInt256 with the standard library's conventions: one reporting-overflow implementation
// per operation; the trapping operators (`+ - * / %`), the wrapping operators (`&+ &- &*`) and the
// optional-returning helpers (`adding`, `multiplied(by:)`) are all built on it.

extension UInt256 {
    /// `self + other` modulo 2^256, and whether the true sum is 2^256 or more.
    public func addingReportingOverflow(_ other: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        var result = UInt256.zero
        var carry = false
        for i in 0..<4 {
            let (s1, o1) = self[limb: i].addingReportingOverflow(other[limb: i])
            let (s2, o2) = s1.addingReportingOverflow(carry ? 1 : 0)
            result[limb: i] = s2
            carry = o1 || o2
        }
        return (result, carry)
    }

    /// `self - other` modulo 2^256, and whether `other` is greater than `self`.
    public func subtractingReportingOverflow(_ other: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        var result = UInt256.zero
        var borrow = false
        for i in 0..<4 {
            let (d1, o1) = self[limb: i].subtractingReportingOverflow(other[limb: i])
            let (d2, o2) = d1.subtractingReportingOverflow(borrow ? 1 : 0)
            result[limb: i] = d2
            borrow = o1 || o2
        }
        return (result, borrow)
    }

    /// The full 512-bit product `self × other` as high and low halves.
    public func multipliedFullWidth(by other: UInt256) -> (high: UInt256, low: UInt256) {
        var low = UInt256.zero
        var high = UInt256.zero
        // Schoolbook: limb i+j of the product collects a[i]·b[j]. a·b + r + carry < 2^128, so the carry
        // into the next limb always fits in one limb.
        for i in 0..<4 where self[limb: i] != 0 {
            var carry: UInt64 = 0
            for j in 0..<4 {
                let k = i + j
                let (hi, lo) = self[limb: i].multipliedFullWidth(by: other[limb: j])
                let current = k < 4 ? low[limb: k] : high[limb: k - 4]
                let (s1, c1) = lo.addingReportingOverflow(current)
                let (s2, c2) = s1.addingReportingOverflow(carry)
                if k < 4 { low[limb: k] = s2 } else { high[limb: k - 4] = s2 }
                carry = hi &+ (c1 ? 1 : 0) &+ (c2 ? 1 : 0)
            }
            high[limb: i] = carry  // limb i + 4: no earlier row reaches it
        }
        return (high, low)
    }

    /// `self × other` modulo 2^256, and whether the true product is 2^256 or more.
    public func multipliedReportingOverflow(by other: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        let (high, low) = multipliedFullWidth(by: other)
        return (low, !high.isZero)
    }

    /// Quotient and remainder of `self ÷ divisor`; `divisor` must not be zero (it traps, like `UInt64`).
    ///
    /// Disfavoured so that a literal divisor picks the `UInt64` overload, whose remainder is a `UInt64`.
    @_disfavoredOverload
    public func quotientAndRemainder(dividingBy divisor: UInt256) -> (quotient: UInt256, remainder: UInt256) {
        precondition(!divisor.isZero, "UInt256: division by zero")
        if let small = divisor.uint64 {
            let (quotient, remainder) = quotientAndRemainder(dividingBy: small)
            return (quotient, UInt256(remainder))
        }
        if self < divisor { return (.zero, self) }
        // Shift-subtract long division from the dividend's top bit; the divisor has more than 64 bits,
        // so at most bitWidth - 64 steps set a quotient bit.
        var quotient = UInt256.zero
        var remainder = UInt256.zero
        for bit in stride(from: bitWidth - 1, through: 0, by: -1) {
            remainder = remainder.shiftedLeftByOne
            if self.bit(bit) { remainder.limbs.0 |= 1 }
            if remainder >= divisor {
                remainder = remainder.subtractingReportingOverflow(divisor).partialValue
                quotient[limb: bit / 64] |= 1 << UInt64(bit % 64)
            }
        }
        return (quotient, remainder)
    }

    /// `self ÷ divisor` rounded down, or `(self, true)` when `divisor` is zero (the standard library's
    /// convention).
    public func dividedReportingOverflow(by divisor: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        divisor.isZero ? (self, true) : (quotientAndRemainder(dividingBy: divisor).quotient, false)
    }

    /// `self mod divisor`, or `(self, true)` when `divisor` is zero (the standard library's convention).
    public func remainderReportingOverflow(dividingBy divisor: UInt256) -> (partialValue: UInt256, overflow: Bool) {
        divisor.isZero ? (self, true) : (quotientAndRemainder(dividingBy: divisor).remainder, false)
    }

    /// Adds, or returns `nil` on overflow.
    public func adding(_ other: UInt256) -> UInt256? {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? nil : sum
    }

    /// Multiplies, or returns `nil` on overflow.
    public func multiplied(by other: UInt256) -> UInt256? {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? nil : product
    }

    /// Bit `index` (0 is the least significant).
    private func bit(_ index: Int) -> Bool { self[limb: index / 64] >> UInt64(index % 64) & 1 == 1 }

    /// `self << 1`, dropping the top bit.
    private var shiftedLeftByOne: UInt256 {
        UInt256(
            limbs: (
                limbs.0 << 1, limbs.1 << 1 | limbs.0 >> 63, limbs.2 << 1 | limbs.1 >> 63, limbs.3 << 1 | limbs.2 >> 63
            ))
    }
}

// MARK: - Operators

extension UInt256: AdditiveArithmetic {
    /// The sum; traps when it is 2^256 or more (use ``addingReportingOverflow(_:)`` or `&+` to handle it).
    public static func + (lhs: UInt256, rhs: UInt256) -> UInt256 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        precondition(!overflow, "UInt256: arithmetic overflow in +")
        return sum
    }

    /// The difference; traps when `rhs` is greater than `lhs` (use ``subtractingReportingOverflow(_:)``
    /// or `&-` to handle it).
    public static func - (lhs: UInt256, rhs: UInt256) -> UInt256 {
        let (difference, overflow) = lhs.subtractingReportingOverflow(rhs)
        precondition(!overflow, "UInt256: arithmetic overflow in -")
        return difference
    }

    /// Adds in place; traps on overflow.
    public static func += (lhs: inout UInt256, rhs: UInt256) { lhs = lhs + rhs }

    /// Subtracts in place; traps on overflow.
    public static func -= (lhs: inout UInt256, rhs: UInt256) { lhs = lhs - rhs }
}

extension UInt256: Numeric {
    /// A `UInt256` is its own magnitude.
    public typealias Magnitude = UInt256

    /// The value itself.
    public var magnitude: UInt256 { self }

    /// Converts `source` when it is non-negative and below 2^256; `nil` otherwise.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard source.signum() >= 0 else { return nil }
        var value = UInt256.zero
        var shift = 0
        // Words are two's complement, least significant first; a non-negative value's words past
        // bit 256 must all be zero.
        for word in source.words {
            if shift < 256 {
                value[limb: shift / 64] |= UInt64(word) << UInt64(shift % 64)
            } else if word != 0 {
                return nil
            }
            shift += UInt.bitWidth
        }
        self = value
    }

    /// The product; traps when it is 2^256 or more (use ``multipliedReportingOverflow(by:)`` or `&*`).
    public static func * (lhs: UInt256, rhs: UInt256) -> UInt256 {
        let (product, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        precondition(!overflow, "UInt256: arithmetic overflow in *")
        return product
    }

    /// Multiplies in place; traps on overflow.
    public static func *= (lhs: inout UInt256, rhs: UInt256) { lhs = lhs * rhs }
}

extension UInt256 {
    /// The quotient rounded down; traps when `rhs` is zero.
    public static func / (lhs: UInt256, rhs: UInt256) -> UInt256 {
        let (quotient, overflow) = lhs.dividedReportingOverflow(by: rhs)
        precondition(!overflow, "UInt256: division by zero in /")
        return quotient
    }

    /// The remainder; traps when `rhs` is zero.
    public static func % (lhs: UInt256, rhs: UInt256) -> UInt256 {
        let (remainder, overflow) = lhs.remainderReportingOverflow(dividingBy: rhs)
        precondition(!overflow, "UInt256: division by zero in %")
        return remainder
    }

    /// Divides in place; traps when `rhs` is zero.
    public static func /= (lhs: inout UInt256, rhs: UInt256) { lhs = lhs / rhs }

    /// Takes the remainder in place; traps when `rhs` is zero.
    public static func %= (lhs: inout UInt256, rhs: UInt256) { lhs = lhs % rhs }

    /// The sum modulo 2^256.
    public static func &+ (lhs: UInt256, rhs: UInt256) -> UInt256 { lhs.addingReportingOverflow(rhs).partialValue }

    /// The difference modulo 2^256.
    public static func &- (lhs: UInt256, rhs: UInt256) -> UInt256 {
        lhs.subtractingReportingOverflow(rhs).partialValue
    }

    /// The product modulo 2^256.
    public static func &* (lhs: UInt256, rhs: UInt256) -> UInt256 {
        lhs.multipliedReportingOverflow(by: rhs).partialValue
    }
}
