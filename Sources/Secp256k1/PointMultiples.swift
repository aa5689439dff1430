import CSecp256k1

/// Precomputed multiples of one curve point P, so that u·P for any scalar u is the sum of at most
/// ⌈257/w⌉ table points (w = ``windowWidth``) instead of a scalar multiplication.
///
/// u is written in signed base-2^w digits, u = Σ dᵢ·2^(w·i) with −2^(w−1) < dᵢ ≤ 2^(w−1), and the
/// table holds j·2^(w·i)·P for every window i and 1 ≤ j ≤ 2^(w−1); a negative digit takes the
/// negation of an entry. The sum itself is one `secp256k1_ec_pubkey_combine` (libsecp256k1's
/// point additions and one conversion to affine coordinates), see
/// ``appendTerms(of:to:count:)``.
///
/// No entry is the point at infinity: j·2^(w·i) is never a multiple of the prime group order n.
/// The table is built with `combine` as well, one addition (and one field inversion) per entry,
/// and is immutable afterwards. Lookups depend on the scalar, so only use this for public scalars
/// (signature verification), never for a private key or a nonce.
final class PointMultiples: @unchecked Sendable {
    // @unchecked Sendable: `entries` is written only in init and read-only afterwards.

    /// Bits per digit.
    let windowWidth: Int

    /// Digits needed for any 256-bit scalar, including the carry out of the top digit.
    let windowCount: Int

    /// Entries per window: 2^(w−1).
    private let entriesPerWindow: Int

    /// `windowCount × entriesPerWindow` points, window-major, each 64 bytes on its own cache line.
    private let entries: UnsafeMutablePointer<secp256k1_pubkey>

    /// Most terms ``appendTerms(of:to:count:)`` appends for one scalar.
    var maximumTerms: Int { windowCount }

    /// Table bytes.
    var byteCount: Int { windowCount * entriesPerWindow * MemoryLayout<secp256k1_pubkey>.stride }

    /// Builds the table of `point` with digits of `windowWidth` bits (2…12).
    init(point: secp256k1_pubkey, windowWidth: Int) {
        precondition((2...12).contains(windowWidth), "window width must be 2…12 bits")
        self.windowWidth = windowWidth
        windowCount = (257 + windowWidth - 1) / windowWidth
        entriesPerWindow = 1 << (windowWidth - 1)
        let count = windowCount * entriesPerWindow
        entries = UnsafeMutableRawPointer.allocate(
            byteCount: count * MemoryLayout<secp256k1_pubkey>.stride, alignment: 64
        ).bindMemory(to: secp256k1_pubkey.self, capacity: count)

        var base = point  // 2^(w·i)·P for the current window i
        for window in 0..<windowCount {
            let row = entries + window * entriesPerWindow
            row.initialize(to: base)
            for multiple in 1..<entriesPerWindow {
                (row + multiple).initialize(to: Self.sum(row + multiple - 1, &base))
            }
            // 2^w·base = 2·(2^(w−1)·base): libsecp256k1's addition also doubles.
            let top = row + entriesPerWindow - 1
            base = Self.sum(top, top)
        }
    }

    deinit {
        entries.deinitialize(count: windowCount * entriesPerWindow)
        UnsafeMutableRawPointer(entries).deallocate()
    }

    /// Appends to `terms` (from index `count`, which it advances) the table points whose sum is
    /// `scalar`·P; appends nothing for 0. `terms` must have room for ``maximumTerms`` more.
    func appendTerms(of scalar: Scalar, to terms: UnsafeMutablePointer<secp256k1_pubkey>, count: inout Int) {
        let half = entriesPerWindow
        let full = half << 1
        var carry = 0
        for window in 0..<windowCount {
            let value = scalar.bits(at: window * windowWidth, width: windowWidth) + carry
            let digit: Int
            if value > half {
                digit = value - full
                carry = 1
            } else {
                digit = value
                carry = 0
            }
            guard digit != 0 else { continue }
            let term = terms + count
            term.initialize(to: entries[window * half + abs(digit) - 1])
            if digit < 0 {
                let negated = secp256k1_ec_pubkey_negate(SharedContext.shared.raw, term)
                precondition(negated == 1, "secp256k1_ec_pubkey_negate failed on a table point")
            }
            count += 1
        }
    }

    /// The table entry multiple·2^(w·window)·P (for tests).
    func entry(window: Int, multiple: Int) -> secp256k1_pubkey {
        precondition((0..<windowCount).contains(window) && (1...entriesPerWindow).contains(multiple))
        return entries[window * entriesPerWindow + multiple - 1]
    }

    /// a + b (a = b included); never the point at infinity for the table's entries.
    private static func sum(
        _ a: UnsafePointer<secp256k1_pubkey>, _ b: UnsafePointer<secp256k1_pubkey>
    ) -> secp256k1_pubkey {
        var result = secp256k1_pubkey()
        let points: [UnsafePointer<secp256k1_pubkey>?] = [a, b]
        let added = secp256k1_ec_pubkey_combine(SharedContext.shared.raw, &result, points, 2)
        precondition(added == 1, "secp256k1_ec_pubkey_combine failed while building a multiples table")
        return result
    }
}
