import SignerKitTestSupport

/// Inputs the benchmark suites share, from the tests' one copy of each (SignerKitTestSupport).
enum BenchmarkFixtures {
    /// The fixed benchmark key (a well-known test key: never fund it) and its address.
    static let keyHex = TestKeys.alphaHex
    /// ``keyHex``'s address.
    static let address = TestKeys.alphaAddress

    /// The Ronin Order typed data (the ground-truth vector `ronin_order.json`) as text, or nil when
    /// the test-support bundle lacks it.
    static let roninOrderText: String? = try? Vectors.roninOrder()
}
