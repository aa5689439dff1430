import EthereumPrimitives
import Foundation

/// Reads the JSON-lines fixtures copied from the ground-truth vectors.
enum Fixtures {
    static func text(_ name: String) throws -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw FixtureError.missing(name)
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func jsonLines(_ name: String) throws -> [JSONValue] {
        try text(name).split(separator: "\n").filter { !$0.isEmpty }.map { try JSONValue(parsing: String($0)) }
    }

    enum FixtureError: Error { case missing(String) }
}

extension JSONValue {
    func string(_ key: String) -> String { self[key]?.stringValue ?? "" }
}
