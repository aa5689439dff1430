import EthereumPrimitives
import Foundation

/// The identity an ID token vouches for, after every check passed.
public struct VerifiedIDToken: Sendable, Hashable {
    /// `sub`: the user's stable id at the issuer.
    public let subject: String
    /// `iss`.
    public let issuer: String
    /// `aud`, as a list (a single string becomes one element).
    public let audience: [String]
    /// `exp`, seconds since 1970.
    public let expiresAt: Int64
    /// `iat`, seconds since 1970.
    public let issuedAt: Int64
    /// `kid` of the key that verified it, when the header named one.
    public let keyID: String?
    /// Every claim of the payload, in document order.
    public let claims: JSONObject

    /// Hashes the checked fields (``claims`` holds them too, so equal tokens hash alike).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(subject)
        hasher.combine(issuer)
        hasher.combine(audience)
        hasher.combine(expiresAt)
        hasher.combine(issuedAt)
        hasher.combine(keyID)
    }
}

/// Verifies an OpenID Connect ID token: JWS compact, `alg` ES256 only, the key chosen by `kid` from a
/// ``JWKSProvider``, the P-256 signature (libgcrypt), then `iss`, `aud` (the client id; a string or an
/// array), `exp`, `nbf` and `iat` against the clock with a leeway.
///
/// ```swift
/// let verifier = IDTokenVerifier(
///     issuer: "https://waypoint.roninchain.com", clientID: "my-client",
///     keys: JWKSProvider(location: "https://waypoint.roninchain.com/.well-known/jwks.json"))
/// func identity(of token: String) async throws(IDTokenError) -> String {
///     try await verifier.verify(token).subject
/// }
/// ```
public struct IDTokenVerifier: Sendable {
    /// The expected `iss`.
    public let issuer: String
    /// The expected audience: the dapp's client id.
    public let clientID: String
    /// Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds.
    public let leeway: Int64
    /// Where the keys come from.
    public let keys: JWKSProvider

    /// A verifier for tokens from `issuer` to `clientID`, tolerating `leeway` seconds of clock skew
    /// (default 60).
    public init(issuer: String, clientID: String, leeway: Int64 = 60, keys: JWKSProvider) {
        self.issuer = issuer
        self.clientID = clientID
        self.leeway = max(0, leeway)
        self.keys = keys
    }

    /// Verifies `token` at time `now`.
    ///
    /// - Throws: ``IDTokenError`` naming the first failed check.
    public func verify(_ token: String, at now: Date = Date()) async throws(IDTokenError) -> VerifiedIDToken {
        let jws = try CompactJWS(parsing: token)
        guard let alg = jws.header["alg"] else { throw .algorithm("(none given)") }
        guard alg.stringValue == "ES256" else { throw .algorithm(alg.stringValue ?? alg.serialized) }
        if jws.header["crit"] != nil { throw .malformed("header has crit extensions, which are not supported") }
        var kid: String?
        if let value = jws.header["kid"] {
            guard let text = value.stringValue else { throw .malformed("header kid is not a string") }
            kid = text
        }
        let candidates = try await keys.keys(for: kid)
        guard !candidates.isEmpty else { throw .unknownKey(kid ?? "(none given)") }
        guard jws.signature.count == 64 else { throw .signature }
        guard candidates.contains(where: { $0.publicKey.verify(signature: jws.signature, message: jws.signingInput) })
        else { throw .signature }
        return try Self.checkClaims(
            jws.payload, issuer: issuer, clientID: clientID, leeway: leeway, keyID: kid, now: now)
    }

    /// The claim checks, after the signature verified.
    package static func checkClaims(
        _ payload: [UInt8], issuer: String, clientID: String, leeway: Int64, keyID: String?, now: Date
    ) throws(IDTokenError) -> VerifiedIDToken {
        guard case .object(let claims)? = try? JSONValue(parsing: payload) else {
            throw .malformed("payload is not a JSON object")
        }
        guard let iss = claims["iss"]?.stringValue else { throw .claim("iss") }
        guard iss == issuer else { throw .issuer(expected: issuer, actual: iss) }
        let audience: [String]
        switch claims["aud"] {
        case .string(let one)?: audience = [one]
        case .array(let list)?:
            let strings = list.compactMap(\.stringValue)
            guard strings.count == list.count, !strings.isEmpty else { throw .claim("aud") }
            audience = strings
        default: throw .claim("aud")
        }
        guard audience.contains(clientID) else { throw .audience(expected: clientID, actual: audience) }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else { throw .claim("sub") }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        guard let exp = numericDate(claims["exp"]) else { throw .claim("exp") }
        guard seconds <= exp.addingReportingOverflow(leeway).partialValue else {
            throw .expired(exp: exp, now: seconds)
        }
        if let value = claims["nbf"] {
            guard let nbf = numericDate(value) else { throw .claim("nbf") }
            guard nbf <= seconds.addingReportingOverflow(leeway).partialValue else {
                throw .notYetValid(nbf: nbf, now: seconds)
            }
        }
        guard let iat = numericDate(claims["iat"]) else { throw .claim("iat") }
        guard iat <= seconds.addingReportingOverflow(leeway).partialValue else {
            throw .issuedInFuture(iat: iat, now: seconds)
        }
        return VerifiedIDToken(
            subject: sub, issuer: iss, audience: audience, expiresAt: exp, issuedAt: iat, keyID: keyID, claims: claims)
    }

    /// A NumericDate: a non-negative JSON number of seconds, any fraction dropped; `nil` otherwise.
    static func numericDate(_ value: JSONValue?) -> Int64? {
        guard case .number(let text)? = value else { return nil }
        let whole = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard whole.count <= 2, let seconds = Int64(whole[0]), seconds >= 0 else { return nil }
        if whole.count == 2, whole[1].isEmpty || !whole[1].allSatisfy(\.isASCII) || !whole[1].allSatisfy(\.isNumber) {
            return nil
        }
        return seconds
    }
}
