import EthereumPrimitives

/// Why a service configuration file was refused: the key path in the file (`keys[1].passwordFile`) and what
/// is wrong with it. Values from the file are quoted abbreviated.
public struct ServiceConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the file (`listen`, `clients[0].tokenSha256`, …); empty for the file as a whole.
    public let path: String
    /// What is wrong.
    public let problem: String

    /// An error at `path`.
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `configuration: keys[1].passwordFile: missing`.
    public var description: String { "configuration: \(path.isEmpty ? "" : path + ": ")\(problem)" }
}
