import Foundation

/// Inputs the benchmark suites share.
enum BenchmarkFixtures {
    /// The fixed benchmark key (a well-known test key: never fund it) and its address.
    static let keyHex = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
    static let address = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"

    /// The Ronin Order typed data (`Fixtures/ronin_order.json`) as text, or nil when the bundle lacks it.
    static let roninOrderText: String? = {
        guard let url = Bundle.module.url(forResource: "ronin_order", withExtension: "json", subdirectory: "Fixtures")
        else { return nil }
        return try? String(contentsOf: url, encoding: .utf8)
    }()
}
