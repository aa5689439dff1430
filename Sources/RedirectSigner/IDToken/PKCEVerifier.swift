import EthereumPrimitives

/// A PKCE code verifier (RFC 7636) and its S256 challenge: the authorize request carries the challenge,
/// and only the holder of the verifier can exchange the returned authorization code.
///
/// Its text never appears in `description`.
public struct PKCEVerifier: Sendable, Hashable, CustomStringConvertible {
    /// The verifier: 43–128 characters of `[A-Za-z0-9-._~]`.
    public let value: String

    /// A fresh verifier: 32 bytes from the system's secure random generator, base64url (43 characters).
    public init() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        value = Base64URL.encode(bytes)
    }

    /// A given verifier, or `nil` unless 43–128 unreserved characters.
    public init?(_ text: String) {
        guard (43...128).contains(text.utf8.count), text.utf8.allSatisfy(Self.isUnreserved) else { return nil }
        value = text
    }

    /// `BASE64URL(SHA-256(verifier))`, sent as `code_challenge` with `code_challenge_method=S256`.
    public var challenge: String { Self.challenge(of: value) }

    /// The S256 challenge of a verifier text.
    public static func challenge(of verifier: String) -> String { Base64URL.encode(P256.sha256(Array(verifier.utf8))) }

    /// Redacted.
    public var description: String { "PKCEVerifier(redacted)" }

    static func isUnreserved(_ c: UInt8) -> Bool {
        (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) || c == 0x2D || c == 0x2E
            || c == 0x5F || c == 0x7E
    }
}
