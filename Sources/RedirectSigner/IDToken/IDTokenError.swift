import EthereumPrimitives

/// Why an ID token (or the key set it is checked against) was refused. ``check`` names the failed
/// check in one word; untrusted values are quoted abbreviated.
public enum IDTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The token is not `header.payload.signature` of base64url JSON (the text names the part).
    case malformed(String)
    /// The header's `alg` is not `ES256` (`none`, `HS256`, `RS256`, … are refused).
    case algorithm(String)
    /// No key in the key set has the token's `kid` (also after one refetch of the set).
    case unknownKey(String)
    /// The signature does not verify under the key (tampered header or payload, or another key).
    case signature
    /// `iss` is not the expected issuer.
    case issuer(expected: String, actual: String)
    /// `aud` does not contain the client id.
    case audience(expected: String, actual: [String])
    /// `exp` has passed (beyond the leeway).
    case expired(exp: Int64, now: Int64)
    /// `nbf` is still in the future (beyond the leeway).
    case notYetValid(nbf: Int64, now: Int64)
    /// `iat` is in the future (beyond the leeway).
    case issuedInFuture(iat: Int64, now: Int64)
    /// A required claim (`iss`, `sub`, `aud`, `exp`, `iat`) is absent or of the wrong type.
    case claim(String)
    /// The key set could not be read, fetched or parsed (the text says why).
    case keySet(String)

    /// The failed check in one word: `format`, `alg`, `kid`, `signature`, `iss`, `aud`, `exp`, `nbf`,
    /// `iat`, `claims` or `jwks`.
    public var check: String {
        switch self {
        case .malformed: "format"
        case .algorithm: "alg"
        case .unknownKey: "kid"
        case .signature: "signature"
        case .issuer: "iss"
        case .audience: "aud"
        case .expired: "exp"
        case .notYetValid: "nbf"
        case .issuedInFuture: "iat"
        case .claim: "claims"
        case .keySet: "jwks"
        }
    }

    /// `ID token refused (CHECK): explanation`.
    public var description: String {
        "ID token refused (\(check)): " + reason
    }

    private var reason: String {
        switch self {
        case .malformed(let text): text
        case .algorithm(let alg): "alg \(Self.shown(alg)) is not ES256"
        case .unknownKey(let kid): "no key with kid \(Self.shown(kid)) in the key set"
        case .signature: "the ES256 signature does not verify"
        case .issuer(let expected, let actual): "iss \(Self.shown(actual)) is not \(Self.shown(expected))"
        case .audience(let expected, let actual):
            "aud [\(actual.map(Self.shown).joined(separator: ", "))] does not contain \(Self.shown(expected))"
        case .expired(let exp, let now): "expired at \(exp), now \(now)"
        case .notYetValid(let nbf, let now): "not valid before \(nbf), now \(now)"
        case .issuedInFuture(let iat, let now): "issued at \(iat), in the future (now \(now))"
        case .claim(let name): "claim \(name) is missing or not of the right type"
        case .keySet(let text): text
        }
    }

    static func shown(_ text: String) -> String { EchoedText.abbreviated(text).debugDescription }
}
