import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// The EIP-4361 fixtures: the specification's three examples (Fixtures/eip4361) and the messages signed by
/// eth-account (siwe_signed.jsonl among the shared vectors, made by scripts/gen_siwe_fixtures.py).
enum SignInFixtures {
    /// The text of a fixture file, exact bytes.
    static func file(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The specification's examples by file name.
    static let exampleNames = [
        "example-implicit-scheme.txt", "example-implicit-scheme-explicit-port.txt", "example-explicit-scheme.txt",
    ]

    /// One signed message.
    struct Signed: Sendable, CustomTestStringConvertible {
        let name, privateKey, message, signature, digest: String
        let address: Address

        var testDescription: String { name }
    }

    /// Every row of siwe_signed.jsonl.
    static func signed() throws -> [Signed] {
        try Vectors.text("siwe_signed.jsonl").split(separator: "\n").map { line in
            let row = try JSONValue(parsing: String(line))
            return Signed(
                name: try row.vectorString("name"), privateKey: try row.vectorString("privateKey"),
                message: try row.vectorString("message"),
                signature: try row.vectorString("signature"), digest: try row.vectorString("digest"),
                address: try Address(try row.vectorString("address")))
        }
    }

    /// The signed row called `name`.
    static func signed(_ name: String) throws -> Signed {
        try #require(try signed().first { $0.name == name })
    }
}
