import EthereumPrimitives

/// A vector row that lacks a member it must have, or has it with another kind.
public struct VectorRowError: Error, CustomStringConvertible {
    /// The member's name.
    public let member: String
    /// `vector row: missing or not a string: <member>`.
    public var description: String { "vector row: missing or not a string: \(member)" }

    /// The error for `member`.
    public init(member: String) { self.member = member }
}

extension JSONValue {
    /// The string member `key` of a vector row.
    ///
    /// - Throws: ``VectorRowError`` when it is missing or not a string.
    public func vectorString(_ key: String) throws -> String {
        guard let value = self[key]?.stringValue else { throw VectorRowError(member: key) }
        return value
    }
}
