import EthereumPrimitives
import Foundation

/// The ground-truth vectors, one copy for every test target (Tests/SignerKitTestSupport/Vectors, copied
/// byte for byte from the project's shared vectors; see their README there).
public enum Vectors {
    /// A vector file that is missing from the bundle.
    public struct Missing: Error, CustomStringConvertible {
        /// The file's name.
        public let name: String
        /// `vector file … is missing`.
        public var description: String { "vector file \(name) is missing" }
    }

    /// The file `name`, e.g. `eip712.jsonl`.
    public static func url(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Vectors") else {
            throw Missing(name: name)
        }
        return url
    }

    /// The path of the file `name`.
    public static func path(_ name: String) throws -> String { try url(name).path }

    /// The text of the file `name`.
    public static func text(_ name: String) throws -> String { try String(contentsOf: url(name), encoding: .utf8) }

    /// The non-empty lines of a JSON-lines file, each parsed.
    public static func rows(_ name: String) throws -> [JSONValue] {
        try text(name).split(separator: "\n").filter { !$0.isEmpty }.map { try JSONValue(parsing: String($0)) }
    }

    /// The Ronin Waypoint `Order` typed data (`ronin_order.json`) as text.
    public static func roninOrder() throws -> String { try text("ronin_order.json") }
}
