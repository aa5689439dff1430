import EthereumPrimitives
import Foundation
import SignerKitTestSupport

/// Reads the ground-truth vectors (one copy, in SignerKitTestSupport).
enum Fixtures {
    static func text(_ name: String) throws -> String { try Vectors.text(name) }

    static func jsonLines(_ name: String) throws -> [JSONValue] { try Vectors.rows(name) }
}
extension JSONValue {
    func string(_ key: String) -> String { self[key]?.stringValue ?? "" }
}
