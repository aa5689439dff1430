/// Why text is not JSON.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem in the input.
    public let offset: Int
    /// What was wrong.
    public let reason: String

    /// Builds an error.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// "invalid JSON at offset N: reason".
    public var description: String { "invalid JSON at offset \(offset): \(reason)" }
}
