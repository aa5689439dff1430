extension UInt256: ExpressibleByIntegerLiteral {
    /// Builds from an integer literal of up to 256 bits (`2^256 - 1` is the largest).
    ///
    /// A negative literal, or one of 2^256 or more, stops the program with a precondition failure that
    /// names the literal: the compiler cannot refuse it, because literals of any size arrive as
    /// `StaticBigInt`.
    @inlinable public init(integerLiteral value: StaticBigInt) {
        precondition(value.signum() >= 0, "UInt256: negative integer literal \(value) does not fit in UInt256")
        // bitWidth counts a sign bit: 2^256 - 1 needs 257.
        precondition(value.bitWidth <= 257, "UInt256: integer literal \(value) does not fit in 256 bits")
        // Not `.zero`: that constant is itself initialised from a literal (`UInt256(0)` is a literal).
        var result = UInt256(limbs: (0, 0, 0, 0))
        var shift = 0
        var index = 0
        while shift < 256 {
            result[limb: shift / 64] |= UInt64(value[index]) << UInt64(shift % 64)
            shift += UInt.bitWidth
            index += 1
        }
        self = result
    }
}
