/// Comparison of secrets (MACs, token digests) whose time does not depend on where they differ.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; every byte pair is looked at whatever the first difference
    /// (lengths are not secret: different lengths are unequal at once).
    package static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
