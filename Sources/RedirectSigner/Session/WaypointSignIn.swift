import EthereumPrimitives
import Foundation
import SignerKitCurl

/// What a sign-in established: the identity (when verified) and, when the scope asked for `wallet`, the
/// addresses.
public struct WaypointSignIn: Sendable, Hashable {
    /// The keyless wallet address; `nil` for an identity-only sign-in (scope without `wallet`).
    public let address: Address?
    /// The user's external account, when one is connected.
    public let secondaryAddress: Address?
    /// The ID token (from the callback, or from the token endpoint after a PKCE exchange).
    public let idToken: String
    /// The checked identity, when the session has an ``IDTokenVerifier``.
    public let identity: VerifiedIDToken?
    /// Whether the token came from exchanging a PKCE authorization code.
    public let exchangedCode: Bool
    /// The wallet's protocol version, when sent.
    public let version: String?
}

extension WaypointSession {
    /// Signs the user in with `scope`. Without `wallet` in the scope no address is required (an
    /// identity-only sign-in); with `pkce` the request carries an S256 `code_challenge` and the
    /// returned `authorization_code` is exchanged at ``tokenEndpoint`` with the verifier for the ID
    /// token. With an ``idTokenVerifier`` the token must pass it before the browser is told "Signed in".
    ///
    /// - Throws: ``WaypointError/idToken(_:)`` naming the failed check,
    ///   ``WaypointError/tokenExchange(_:)``, ``WaypointError/verificationFailed(_:)`` for a missing
    ///   address or token, and the round trip's errors.
    public func signIn(
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), scope: [String] = Waypoint.defaultScope, pkce: Bool = false
    ) async throws(WaypointError) -> WaypointSignIn {
        var request = WaypointRequest.authorize(
            origin: origin, clientId: clientId, redirect: redirectURI, chainId: chainId, scope: scope)
        let verifier = pkce ? PKCEVerifier() : nil
        request.codeChallenge = verifier?.challenge
        let wantsWallet = scope.contains("wallet")
        return try await perform(request) { [self] (callback) async throws(WaypointError) in
            let (data, addressText, secondaryText) = try WaypointVerification.success(callback)
            let address = try addressText.map { (text: String) throws(WaypointError) in
                try WaypointVerification.address(text, field: "address")
            }
            if wantsWallet, address == nil { throw .verificationFailed("authorize callback has no address") }
            let secondary = try secondaryText.map { (text: String) throws(WaypointError) in
                try WaypointVerification.address(text, field: "secondary_address")
            }
            let token: String
            if let verifier {
                guard let code = callback.authorizationCode else {
                    throw .verificationFailed("authorize callback to a PKCE request has no authorization_code")
                }
                token = try await exchange(code: code, verifier: verifier)
            } else {
                guard !data.isEmpty else { throw .verificationFailed("authorize callback has an empty ID token") }
                token = data
            }
            var identity: VerifiedIDToken?
            if let idTokenVerifier {
                do throws(IDTokenError) { identity = try await idTokenVerifier.verify(token) } catch {
                    throw .idToken(error)
                }
            }
            return WaypointSignIn(
                address: address, secondaryAddress: secondary, idToken: token, identity: identity,
                exchangedCode: verifier != nil, version: callback.version)
        }
    }

    /// Exchanges a PKCE authorization code at ``tokenEndpoint``: a form POST of `grant_type`,
    /// `code`, `redirect_uri`, `client_id` and `code_verifier`, answered by JSON with `id_token`.
    ///
    /// - Throws: ``WaypointError/tokenExchange(_:)``.
    public func exchange(code: String, verifier: PKCEVerifier) async throws(WaypointError) -> String {
        guard let url = URL(string: tokenEndpoint) else { throw .tokenExchange("token endpoint is not a URL") }
        let form = QueryEncoding.query(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("client_id", clientId), ("code_verifier", verifier.value),
            ], spaceAsPlus: true)
        let response: HTTPResponse
        do {
            response = try await CurlHTTPTransport.shared.send(
                HTTPRequest(
                    method: "POST", url: url,
                    headers: [
                        HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
                        HTTPHeader("Accept", "application/json"),
                    ], body: Array(form.utf8), timeout: .seconds(30), maxResponseBytes: 256 * 1024))
        } catch { throw .tokenExchange("\(error)") }
        let json = try? JSONValue(parsing: response.body)
        guard response.isSuccess else {
            let reason = json?["error"]?.stringValue.map(CallbackParseError.shown) ?? "no error code"
            throw .tokenExchange("token endpoint answered HTTP \(response.status) (\(reason))")
        }
        guard let token = json?["id_token"]?.stringValue, !token.isEmpty else {
            throw .tokenExchange("token endpoint answer has no id_token")
        }
        return token
    }
}
