import EthereumPrimitives
import Foundation
import RedirectSigner

/// What a hosted wallet (Waypoint) sends back: callback deep links and ID tokens with their key sets.
enum RedirectTargets {
    static let waypointCallback = FuzzTarget(
        name: "waypoint-callback",
        summary: "Waypoint callback URLs: an accepted callback prints as a URL that parses to the same callback"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        let callback: WaypointCallback
        do throws(CallbackParseError) {
            callback = try WaypointCallback(parsing: text)
        } catch {
            FuzzCheck.boundedDescription(error)
            return
        }
        FuzzCheck.expect(!callback.state.isEmpty, "a callback without state")
        let url = callback.url
        guard let again = try? WaypointCallback(parsing: url) else {
            FuzzCheck.expect(false, "a callback's URL does not parse: \(url.prefix(200))")
            return
        }
        FuzzCheck.expect(again == callback, "a callback's URL parses to another callback: \(url.prefix(200))")
        if let failure = callback.failure {
            let rebuilt = WaypointFailure(code: failure.code, wireMessage: failure.wireMessage)
            FuzzCheck.expect(rebuilt == failure, "a failure's wire message reads back as another failure")
        }
    }

    static let issuer = "https://id.fuzz.example"
    static let clientID = "fuzz-client"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let idToken = FuzzTarget(
        name: "id-token",
        summary: "ID tokens (compact JWS) and JWKS documents: parse, claim checks against a fixed issuer and "
            + "clock; a key set prints back and parses equal"
    ) { bytes in
        if let text = FuzzCheck.text(bytes) {
            do throws(IDTokenError) {
                let jws = try CompactJWS(parsing: text)
                FuzzCheck.expect(text.utf8.count <= CompactJWS.maximumLength, "a token over the length limit")
                FuzzCheck.expect(jws.signingInput.count < text.utf8.count, "signing input longer than the token")
                let verified = try IDTokenVerifier.checkClaims(
                    jws.payload, issuer: issuer, clientID: clientID, leeway: 60, keyID: jws.keyID, now: now)
                FuzzCheck.expect(verified.issuer == issuer, "claims of another issuer accepted")
                FuzzCheck.expect(verified.audience.contains(clientID), "claims for another audience accepted")
                FuzzCheck.expect(verified.expiresAt + 60 >= 1_800_000_000, "expired claims accepted")
            } catch {
                FuzzCheck.boundedDescription(error)
            }
        }
        do throws(IDTokenError) {
            let set = try JSONWebKeySet(json: bytes)
            let again = try? JSONWebKeySet(json: Array(set.json.serialized.utf8))
            FuzzCheck.expect(again == set, "a key set does not round-trip")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }
}
