import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTesting
import SignerKitTestSupport
import Testing

/// ES256 ID tokens with real P-256 keys (libgcrypt), the JWKS model, the verifier's checks and key
/// rotation over loopback HTTP.
@Suite("ID token verification")
struct IDTokenTests {
    static let issuer = "https://issuer.example"
    static let client = "my-client"
    static let now: Int64 = 1_800_000_000

    func verifier(_ issuer: IDTokenIssuer, leeway: Int64 = 60) -> IDTokenVerifier {
        IDTokenVerifier(
            issuer: Self.issuer, clientID: Self.client, leeway: leeway, keys: JWKSProvider(.keys(issuer.keySet)))
    }

    func claims(_ changes: KeyValuePairs<String, JSONValue> = [:]) -> JSONObject {
        var claims = IDTokenIssuer.claims(issuer: Self.issuer, audience: Self.client, subject: "user-1", now: Self.now)
        for (key, value) in changes { claims[key] = value }
        return claims
    }

    func refusal(_ token: String, _ verifier: IDTokenVerifier, at seconds: Int64 = now) async -> IDTokenError? {
        do {
            _ = try await verifier.verify(token, at: Date(timeIntervalSince1970: TimeInterval(seconds)))
            return nil
        } catch { return error }
    }

    @Test func rfc7515ExampleES256Verifies() throws {
        // RFC 7515 Appendix A.3: the published ES256 example (key and JWS).
        let x = try #require(Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"))
        let y = try #require(Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        let key = try #require(P256PublicKey(x: x, y: y))
        let jws = try CompactJWS(
            parsing:
                "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
                + "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q")
        #expect(jws.algorithm == "ES256")
        #expect(key.verify(signature: jws.signature, message: jws.signingInput))
        var tampered = jws.signingInput
        tampered[tampered.count - 1] ^= 1
        #expect(!key.verify(signature: jws.signature, message: tampered))
        var badSignature = jws.signature
        badSignature[40] ^= 0x80
        #expect(!key.verify(signature: badSignature, message: jws.signingInput))
        #expect(!key.verify(signature: Array(jws.signature.prefix(63)), message: jws.signingInput))
    }

    @Test func pointsOffTheCurveAreRefused() throws {
        let x = try #require(Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"))
        var y = try #require(Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        y[31] ^= 1
        #expect(P256PublicKey(x: x, y: y) == nil)
        #expect(P256PublicKey(x: Array(x.prefix(31)), y: y) == nil)
    }

    @Test func validTokenVerifies() async throws {
        let issuer = IDTokenIssuer()
        var extra = claims()
        extra["email"] = .string("a@example.com")
        let token = issuer.token(claims: extra)
        let identity = try await verifier(issuer).verify(token, at: Date(timeIntervalSince1970: TimeInterval(Self.now)))
        #expect(identity.subject == "user-1")
        #expect(identity.issuer == Self.issuer)
        #expect(identity.audience == [Self.client])
        #expect(identity.keyID == issuer.currentKeyID)
        #expect(identity.claims["email"]?.stringValue == "a@example.com")
        // Another key claiming this key's kid: the signature is the key's, not a constant.
        let impostor = IDTokenIssuer().token(
            claims: extra, header: JSONObject(["alg": .string("ES256"), "kid": .string(issuer.currentKeyID)]))
        #expect(await refusal(impostor, verifier(issuer)) == .signature)
    }

    @Test func tamperedPayloadFailsTheSignature() async throws {
        let issuer = IDTokenIssuer()
        let token = issuer.token(claims: claims())
        let parts = token.split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Array(JSONValue.object(claims(["sub": .string("admin")])).serialized.utf8))
        let error = await refusal(parts[0] + "." + forged + "." + parts[2], verifier(issuer))
        #expect(error == .signature)
        #expect(error?.check == "signature")
    }

    @Test func algorithmNoneAndHMACAreRefused() async throws {
        let issuer = IDTokenIssuer()
        let payload = Base64URL.encode(Array(JSONValue.object(claims()).serialized.utf8))
        for alg in ["none", "HS256", "RS256", "ES384"] {
            let header = Base64URL.encode(Array(#"{"alg":"\#(alg)","typ":"JWT"}"#.utf8))
            let error = await refusal(header + "." + payload + ".", verifier(issuer))
            #expect(error == .algorithm(alg))
            #expect(error?.check == "alg")
        }
        // An ES256 token re-labelled none keeps its signature but is still refused on alg.
        let relabelled = issuer.token(
            claims: claims(), header: JSONObject(["alg": .string("none"), "kid": .string(issuer.currentKeyID)]))
        #expect(await refusal(relabelled, verifier(issuer)) == .algorithm("none"))
    }

    @Test func unknownKidIsRefused() async throws {
        let issuer = IDTokenIssuer()
        let token = issuer.token(
            claims: claims(), header: JSONObject(["alg": .string("ES256"), "kid": .string("someone-else")]))
        let error = await refusal(token, verifier(issuer))
        #expect(error == .unknownKey("someone-else"))
        #expect(error?.description.contains("(kid)") == true)
    }

    @Test func timeChecksHonourTheLeeway() async throws {
        let issuer = IDTokenIssuer()
        let token = issuer.token(claims: claims())
        let exp = Self.now + 3600
        #expect(await refusal(token, verifier(issuer), at: exp + 60) == nil)
        #expect(await refusal(token, verifier(issuer), at: exp + 61) == .expired(exp: exp, now: exp + 61))
        #expect(await refusal(token, verifier(issuer, leeway: 0), at: exp + 1)?.check == "exp")
        #expect(
            await refusal(token, verifier(issuer), at: Self.now - 61)
                == .issuedInFuture(iat: Self.now, now: Self.now - 61))
        let later = issuer.token(claims: claims(["nbf": .number(String(Self.now + 600))]))
        #expect(await refusal(later, verifier(issuer)) == .notYetValid(nbf: Self.now + 600, now: Self.now))
        #expect(await refusal(later, verifier(issuer), at: Self.now + 540) == nil)
        let noExp = issuer.token(claims: claims(["exp": .string("tomorrow")]))
        #expect(await refusal(noExp, verifier(issuer)) == .claim("exp"))
    }

    @Test func issuerAndAudienceMustMatch() async throws {
        let issuer = IDTokenIssuer()
        let wrongIssuer = issuer.token(claims: claims(["iss": .string("https://evil.example")]))
        #expect(
            await refusal(wrongIssuer, verifier(issuer))
                == .issuer(expected: Self.issuer, actual: "https://evil.example"))
        let wrongAudience = issuer.token(claims: claims(["aud": .string("other-client")]))
        #expect(
            await refusal(wrongAudience, verifier(issuer)) == .audience(expected: Self.client, actual: ["other-client"])
        )
        let listed = issuer.token(claims: claims(["aud": .array([.string("other"), .string(Self.client)])]))
        #expect(await refusal(listed, verifier(issuer)) == nil)
        let notListed = issuer.token(claims: claims(["aud": .array([.string("other")])]))
        #expect(await refusal(notListed, verifier(issuer))?.check == "aud")
        let badList = issuer.token(claims: claims(["aud": .array([.number("1")])]))
        #expect(await refusal(badList, verifier(issuer)) == .claim("aud"))
    }

    @Test func malformedTokensNameThePart() async throws {
        let issuer = IDTokenIssuer()
        let v = verifier(issuer)
        #expect(await refusal("a.b", v)?.check == "format")
        #expect(await refusal("a.b.c.d", v)?.check == "format")
        #expect(await refusal("!!.e30.", v) == .malformed("header is not base64url"))
        #expect(await refusal("e30.e30.", v) == .algorithm("(none given)"))
        let good = issuer.token(claims: claims()).split(separator: ".").map(String.init)
        #expect(await refusal(good[0] + ".%%." + good[2], v) == .malformed("payload is not base64url"))
        #expect(await refusal(good[0] + "." + good[1] + ".AAA", v) == .signature)
        #expect(Base64URL.decode("AB") == nil)  // non-zero unused bits
        #expect(Base64URL.decode("AQ") == [1])
        #expect(Base64URL.decode("AQ==") == nil)
    }

    @Test func jwksParsingSkipsOtherKeysAndRefusesBadOnes() throws {
        let issuer = IDTokenIssuer()
        let key = try #require(issuer.keySet.keys.first)
        let ec = key.json.serialized
        let set = try JSONWebKeySet(
            json: Array(
                #"{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"},{"kty":"EC","crv":"P-384","x":"","y":""},\#(ec)]}"#.utf8)
        )
        #expect(set.keys == [key])
        #expect(throws: IDTokenError.keySet("keys[0].x is not 32 bytes of base64url")) {
            try JSONWebKeySet(json: Array(#"{"keys":[{"kty":"EC","crv":"P-256","x":"AQ","y":"AQ"}]}"#.utf8))
        }
        #expect(throws: IDTokenError.keySet("key set has no \"keys\" array")) {
            try JSONWebKeySet(json: Array("{}".utf8))
        }
    }

    @Test func keySetFromAFile() async throws {
        let issuer = IDTokenIssuer()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json").path
        try Data(issuer.jwksJSON.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verifier = IDTokenVerifier(issuer: Self.issuer, clientID: Self.client, keys: JWKSProvider(location: path))
        let identity = try await verifier.verify(
            issuer.token(claims: claims()), at: Date(timeIntervalSince1970: TimeInterval(Self.now)))
        #expect(identity.subject == "user-1")
        let missing = IDTokenVerifier(
            issuer: Self.issuer, clientID: Self.client, keys: JWKSProvider(location: path + ".absent"))
        #expect(await refusal(issuer.token(claims: claims()), missing)?.check == "jwks")
    }

    @Test func rotationRefetchesTheKeySetOnceOverHTTP() async throws {
        let simulator = try HostedWalletSimulator(configuration: .init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await simulator.stop() } }
        let tokens = simulator.configuration.tokenIssuer
        let url = try #require(URL(string: simulator.origin + "/.well-known/jwks.json"))
        let provider = JWKSProvider(.url(url), minimumRefetchInterval: .zero)
        let verifier = IDTokenVerifier(issuer: Self.issuer, clientID: Self.client, keys: provider)
        let at = Date(timeIntervalSince1970: TimeInterval(Self.now))
        _ = try await verifier.verify(tokens.token(claims: claims()), at: at)
        _ = try await verifier.verify(tokens.token(claims: claims()), at: at)
        #expect(provider.loadCount == 1)
        tokens.rotate(dropOld: true)
        let rotated = tokens.token(claims: claims())
        #expect(try await verifier.verify(rotated, at: at).keyID == tokens.currentKeyID)
        #expect(provider.loadCount == 2)
        // An unknown kid costs one refetch, then is refused.
        let unknown = tokens.token(
            claims: claims(), header: JSONObject(["alg": .string("ES256"), "kid": .string("nobody")]))
        #expect(await refusal(unknown, verifier) == .unknownKey("nobody"))
        #expect(provider.loadCount == 3)

        // Rate limit: within the interval (on the provider's clock) an unknown kid does not refetch; once it
        // has passed, the next unknown kid does, once.
        let clock = ManualClock()
        let limited = JWKSProvider(.url(url), minimumRefetchInterval: .seconds(3600), clock: clock)
        let limitedVerifier = IDTokenVerifier(issuer: Self.issuer, clientID: Self.client, keys: limited)
        _ = try await limitedVerifier.verify(tokens.token(claims: claims()), at: at)
        for _ in 0..<5 { #expect(await refusal(unknown, limitedVerifier) == .unknownKey("nobody")) }
        #expect(limited.loadCount == 1)
        clock.advance(by: .seconds(3600) - .nanoseconds(1))
        #expect(await refusal(unknown, limitedVerifier) == .unknownKey("nobody"))
        #expect(limited.loadCount == 1)
        clock.advance(by: .nanoseconds(1))
        for _ in 0..<3 { #expect(await refusal(unknown, limitedVerifier) == .unknownKey("nobody")) }
        #expect(limited.loadCount == 2)
    }

    @Test func pkceChallengeIsS256() throws {
        // Expected value from Python: base64.urlsafe_b64encode(hashlib.sha256(v).digest()) without padding.
        let verifier = try #require(PKCEVerifier("dBjftJeZ4CVP-mB92K9uhvbRi7e7c2uEYpMhZkRsrWc"))
        #expect(verifier.challenge == "tExgulVAX7JDqzo002fEqgylLxgEo5-BU94ZqBStkRI")
        #expect(!verifier.description.contains(verifier.value))
        let fresh = PKCEVerifier()
        #expect(fresh.value.utf8.count == 43)
        #expect(PKCEVerifier(fresh.value) != nil)
        #expect(fresh != PKCEVerifier())
        #expect(PKCEVerifier("short") == nil)
        #expect(PKCEVerifier(String(repeating: "a", count: 129)) == nil)
        #expect(PKCEVerifier(String(repeating: "a", count: 42) + "+") == nil)
    }
}
