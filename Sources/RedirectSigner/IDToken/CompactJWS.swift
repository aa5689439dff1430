import EthereumPrimitives

/// A JWS in compact serialisation (RFC 7515 §7.1): `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)`,
/// split and decoded but not verified.
public struct CompactJWS: Sendable, Equatable {
    /// The protected header (a JSON object).
    public let header: JSONObject
    /// The payload bytes.
    public let payload: [UInt8]
    /// The signature bytes (64 bytes r‖s for ES256).
    public let signature: [UInt8]
    /// What was signed: the ASCII of `header.payload` as received.
    public let signingInput: [UInt8]

    /// The longest token accepted (64 KiB).
    public static let maximumLength = 65_536

    /// Splits and decodes `token`.
    ///
    /// - Throws: ``IDTokenError/malformed(_:)`` naming the part (`header`, `payload`, `signature`).
    public init(parsing token: String) throws(IDTokenError) {
        guard token.utf8.count <= Self.maximumLength else { throw .malformed("token is longer than 64 KiB") }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .malformed("expected 3 dot-separated parts, found \(parts.count)")
        }
        guard let headerBytes = Base64URL.decode(Substring(parts[0])) else {
            throw .malformed("header is not base64url")
        }
        guard case .object(let header)? = try? JSONValue(parsing: headerBytes) else {
            throw .malformed("header is not a JSON object")
        }
        guard let payload = Base64URL.decode(Substring(parts[1])) else { throw .malformed("payload is not base64url") }
        guard let signature = Base64URL.decode(Substring(parts[2])) else {
            throw .malformed("signature is not base64url")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
    }

    /// The header's `alg`, when a string.
    public var algorithm: String? { header["alg"]?.stringValue }

    /// The header's `kid`, when a string.
    public var keyID: String? { header["kid"]?.stringValue }
}
