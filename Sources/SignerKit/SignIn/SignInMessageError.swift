import EthereumPrimitives

/// Why a text is not an EIP-4361 message, or why a message cannot be built: the line (1-based, when the
/// problem is on one), the field, and what is wrong, with untrusted text quoted abbreviated.
///
/// `description`: `SIWE message line 2 (address): not in EIP-55 checksum form (expected 0xC02a…)`.
public struct SignInMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field of the EIP-4361 grammar (raw values as the specification names them).
    public enum Field: String, Sendable, Equatable, CaseIterable {
        /// The message as a whole (its size, its line structure).
        case message
        /// The first line, `[scheme "://"] domain " wants you to sign in with your Ethereum account:"`.
        case header
        /// The optional `scheme` before the domain.
        case scheme
        /// The `domain` (an RFC 3986 authority).
        case domain
        /// The `address` line.
        case address
        /// The optional `statement`.
        case statement
        /// `URI: `.
        case uri = "URI"
        /// `Version: `.
        case version = "Version"
        /// `Chain ID: `.
        case chainId = "Chain ID"
        /// `Nonce: `.
        case nonce = "Nonce"
        /// `Issued At: `.
        case issuedAt = "Issued At"
        /// `Expiration Time: `.
        case expirationTime = "Expiration Time"
        /// `Not Before: `.
        case notBefore = "Not Before"
        /// `Request ID: `.
        case requestId = "Request ID"
        /// `Resources:` and its `- ` lines.
        case resources = "Resources"
    }

    /// The 1-based line of the message, or `nil` when building or when the problem is not on one line.
    public let line: Int?
    /// The field.
    public let field: Field
    /// What is wrong (untrusted text in it is quoted abbreviated).
    public let problem: String

    /// An error.
    public init(line: Int?, field: Field, problem: String) {
        self.line = line
        self.field = field
        self.problem = problem
    }

    /// `SIWE message line 4 (statement): …`, or `SIWE message (Nonce): …` without a line.
    public var description: String {
        "SIWE message \(line.map { "line \($0) " } ?? "")(\(field.rawValue)): \(problem)"
    }

    /// Untrusted text for an error: control characters escaped, abbreviated, in double quotes.
    static func quote(_ bytes: some Collection<UInt8>) -> String {
        "\"" + MessagePreview.quoted(String(decoding: Array(bytes.prefix(8 * EchoedText.limit)), as: UTF8.self)) + "\""
    }

    /// Untrusted text for an error, as the byte form quotes it.
    static func quote(_ text: String) -> String { quote(Array(text.utf8)) }
}
