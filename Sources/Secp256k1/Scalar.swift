import CSecp256k1
import EthereumPrimitives

/// A 256-bit unsigned integer in four 64-bit limbs, with the few operations modulo the group
/// order n that signature handling needs (range checks, low-s normalisation, inversion).
///
/// Stored inline, so nothing here allocates. The arithmetic is variable-time: it is only ever
/// applied to public values (signature scalars, digests, public-key coordinates), never to a
/// private key or a nonce.
struct Scalar: Equatable {
    /// Limbs, least significant first.
    var l0: UInt64
    var l1: UInt64
    var l2: UInt64
    var l3: UInt64

    @inline(__always) init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
    }

    /// The limbs of `value`.
    @inline(__always) init(_ value: UInt256) {
        self.init(value.limbs.0, value.limbs.1, value.limbs.2, value.limbs.3)
    }

    static let zero = Scalar(0, 0, 0, 0)
    static let one = Scalar(1, 0, 0, 0)

    /// The group order n.
    static let order = Scalar(Secp256k1Order.order)

    /// ⌊n/2⌋, the largest low s (EIP-2).
    static let halfOrder = Scalar(Secp256k1Order.halfOrder)

    /// The same value as a ``UInt256``.
    @inline(__always) var value: UInt256 { UInt256(limbs: (l0, l1, l2, l3)) }

    /// Reads a 32-byte big-endian word.
    @inline(__always) init(_ word: Bytes32) { self.init(UInt256(word: word)) }

    /// The value as a 32-byte big-endian word.
    var word: Bytes32 { value.word }

    var isZero: Bool { (l0 | l1 | l2 | l3) == 0 }

    /// 0 < value < n: a valid signature scalar.
    var isValidNonzero: Bool { !isZero && self < Scalar.order }

    @inline(__always) private var isOne: Bool { l0 == 1 && (l1 | l2 | l3) == 0 }

    @inline(__always) private var isEven: Bool { l0 & 1 == 0 }

    /// Unsigned comparison.
    @inline(__always) static func < (lhs: Scalar, rhs: Scalar) -> Bool { lhs.value < rhs.value }

    /// self + other (+ 1 when `carryIn`) modulo 2^256; returns the carry out.
    @inline(__always) @discardableResult
    private mutating func add(_ other: Scalar, carryIn: Bool = false) -> Bool {
        var carry = carryIn
        @inline(__always) func step(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            let (total, carried) = sum.addingReportingOverflow(carry ? 1 : 0)
            carry = overflow || carried
            return total
        }
        self = Scalar(step(l0, other.l0), step(l1, other.l1), step(l2, other.l2), step(l3, other.l3))
        return carry
    }

    /// self − other modulo 2^256 (as self + ¬other + 1); returns the borrow out.
    @inline(__always) @discardableResult
    private mutating func subtract(_ other: Scalar) -> Bool {
        !add(Scalar(~other.l0, ~other.l1, ~other.l2, ~other.l3), carryIn: true)
    }

    /// Shifts right by one bit, shifting `topBit` in at bit 255.
    @inline(__always) private mutating func shiftRight(topBit: Bool) {
        l0 = (l0 >> 1) | (l1 << 63)
        l1 = (l1 >> 1) | (l2 << 63)
        l2 = (l2 >> 1) | (l3 << 63)
        l3 = (l3 >> 1) | (topBit ? 1 << 63 : 0)
    }

    /// The `width` bits (1…16) starting at bit `offset`, bit 0 being the least significant; bits
    /// past 255 read as zero.
    @inline(__always) func bits(at offset: Int, width: Int) -> Int {
        guard offset < 256 else { return 0 }
        let index = offset >> 6
        let shift = UInt64(offset & 63)
        var value = limb(index) >> shift
        if shift > 0, index < 3 { value |= limb(index + 1) << (64 - shift) }
        return Int(truncatingIfNeeded: value & ((1 << UInt64(width)) - 1))
    }

    /// Limb `index` (0…3).
    @inline(__always) private func limb(_ index: Int) -> UInt64 {
        switch index {
        case 0: l0
        case 1: l1
        case 2: l2
        default: l3
        }
    }

    /// self mod n, for any 256-bit value (2^256 < 2n, so one subtraction suffices).
    var reducedModOrder: Scalar {
        guard !(self < Scalar.order) else { return self }
        var result = self
        result.subtract(Scalar.order)
        return result
    }

    /// n − self, for 0 < self < n.
    var negatedModOrder: Scalar {
        var result = Scalar.order
        result.subtract(self)
        return result
    }

    /// value ↦ value / 2 mod n, for value < n.
    @inline(__always) private mutating func halveModOrder() {
        if isEven {
            shiftRight(topBit: false)
        } else {
            let carry = add(Scalar.order)
            shiftRight(topBit: carry)
        }
    }

    /// value ↦ value − other mod n, for value, other < n.
    @inline(__always) private mutating func subtractModOrder(_ other: Scalar) {
        if subtract(other) { add(Scalar.order) }
    }

    /// The inverse modulo n, for 0 < self < n (binary extended Euclid; variable-time).
    var inverseModOrder: Scalar {
        precondition(isValidNonzero, "only 0 < a < n has an inverse modulo n")
        // Invariants: x1·a ≡ u and x2·a ≡ v (mod n); gcd(u, v) = gcd(a, n) = 1.
        var u = self
        var v = Scalar.order
        var x1 = Scalar.one
        var x2 = Scalar.zero
        while !u.isOne && !v.isOne {
            while u.isEven {
                u.shiftRight(topBit: false)
                x1.halveModOrder()
            }
            while v.isEven {
                v.shiftRight(topBit: false)
                x2.halveModOrder()
            }
            // Both odd now; u == v only when both are 1 (then u becomes 0 and the loop ends on
            // v == 1).
            if v < u || u == v {
                u.subtract(v)
                x1.subtractModOrder(x2)
            } else {
                v.subtract(u)
                x2.subtractModOrder(x1)
            }
        }
        return u.isOne ? x1 : x2
    }

    /// self · other mod n, through libsecp256k1's constant-time scalar multiplication; both
    /// factors must be 0 < value < n.
    func multipliedModOrder(by other: Scalar) -> Scalar {
        var product = word
        let factor = other.word
        let ok = product.withUnsafeMutableBytes { productBytes in
            factor.withUnsafeBytes { factorBytes in
                secp256k1_ec_seckey_tweak_mul(
                    SharedContext.shared.raw, productBytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    factorBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        precondition(ok == 1, "scalar multiplication needs factors in 1..<n")
        return Scalar(product)
    }
}
