import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTesting
import RedirectSignerTransports
import SignerKitTestSupport
import Testing

/// Sign-ins against the simulator with ID-token verification: wallet and identity-only scopes, PKCE,
/// and refusals naming the failed check.
@Suite("Verified sign-in through the simulated hosted wallet")
struct SignInRoundTripTests {
    @Test func walletSignInCarriesTheVerifiedIdentity() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove), verifying: true)
        defer { Task { await wallet.close() } }
        let auth = try await wallet.session.authorize()
        #expect(auth.address == TestKeys.wallet.address)
        let identity = try #require(auth.identity)
        #expect(identity.subject == TestKeys.wallet.address.lowercased)
        #expect(identity.issuer == wallet.simulator.origin)
        #expect(identity.audience == [SimulatedWallet.clientId])
        #expect(identity.keyID == wallet.simulator.configuration.tokenIssuer.currentKeyID)
        #expect(identity.claims["scope"]?.stringValue == "openid wallet")
    }

    @Test func identityOnlySignInNeedsNoAddress() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove), verifying: true)
        defer { Task { await wallet.close() } }
        let signIn = try await wallet.session.signIn(scope: ["openid", "profile"])
        #expect(signIn.address == nil)
        #expect(signIn.secondaryAddress == nil)
        #expect(signIn.identity?.subject == TestKeys.wallet.address.lowercased)
        #expect(wallet.simulator.receivedRequests.first?.parameters["scope"] == "openid profile")
        // authorize() still wants the wallet.
        await #expect(throws: WaypointError.verificationFailed("authorize callback has no address")) {
            _ = try await wallet.session.authorize(scope: ["openid"])
        }
    }

    @Test func pkceCodeIsExchangedWithTheVerifier() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove), verifying: true)
        defer { Task { await wallet.close() } }
        let signIn = try await wallet.session.signIn(pkce: true)
        #expect(signIn.exchangedCode)
        #expect(signIn.address == TestKeys.wallet.address)
        #expect(signIn.identity?.audience == [SimulatedWallet.clientId])
        let sent = try #require(wallet.simulator.receivedRequests.first?.parameters)
        #expect(sent["code_challenge_method"] == "S256")
        #expect(sent["code_challenge"]?.utf8.count == 43)
    }

    @Test func pkceExchangeWithAnotherVerifierIsRefused() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        // Obtain a code by hand: the request carries one verifier's challenge, the exchange another verifier.
        let verifier = PKCEVerifier()
        var request = WaypointRequest.authorize(
            origin: wallet.simulator.origin, clientId: SimulatedWallet.clientId, redirect: wallet.session.redirectURI)
        request.codeChallenge = verifier.challenge
        let code = try await wallet.session.perform(request) { (callback) throws(WaypointError) in
            guard let code = callback.authorizationCode else { throw .verificationFailed("no code") }
            return code
        }
        let error = await #expect(throws: WaypointError.self) {
            _ = try await wallet.session.exchange(code: code, verifier: PKCEVerifier())
        }
        #expect(error?.description.contains("invalid_grant") == true)
        // Codes are single use: the failed attempt spent it, so the right verifier is now refused too.
        await #expect(throws: WaypointError.self) {
            _ = try await wallet.session.exchange(code: code, verifier: verifier)
        }
    }

    @Test func tokenFromAnotherIssuerIsRefusedNamingTheCheck() async throws {
        let simulator = try HostedWalletSimulator(configuration: .init(signer: TestKeys.wallet, mode: .autoApprove))
        let browser = FetchingOpener()
        let verifier = IDTokenVerifier(
            issuer: "https://waypoint.roninchain.com", clientID: SimulatedWallet.clientId,
            keys: JWKSProvider(location: simulator.origin + "/.well-known/jwks.json"))
        let clock = ManualClock()
        let session = WaypointSession(
            origin: simulator.origin, clientId: SimulatedWallet.clientId,
            transport: try LoopbackTransport(opener: browser.opener, clock: clock), clock: clock,
            idTokenVerifier: verifier)
        let outcome: Result<WaypointAuthorization, WaypointError>
        do { outcome = .success(try await session.authorize()) } catch { outcome = .failure(error) }
        let pages = try await browser.waitForPages(1)
        await session.close()
        await simulator.stop()
        guard case .failure(.idToken(let refusal)) = outcome else {
            Issue.record("expected an ID token refusal, got \(outcome)")
            return
        }
        #expect(refusal.check == "iss")
        #expect(pages.first?.body.contains("(iss)") == true)
    }

    @Test func keysOfAnotherIssuerFailTheSignature() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        let other = IDTokenIssuer()
        let clock = ManualClock()
        let session = WaypointSession(
            origin: wallet.simulator.origin, clientId: SimulatedWallet.clientId,
            transport: try LoopbackTransport(opener: wallet.browser.opener, clock: clock), clock: clock,
            idTokenVerifier: IDTokenVerifier(
                issuer: wallet.simulator.origin, clientID: SimulatedWallet.clientId,
                keys: JWKSProvider(
                    .keys(
                        JSONWebKeySet(
                            keys: other.keySet.keys.map {
                                JSONWebKey(
                                    keyID: wallet.simulator.configuration.tokenIssuer.currentKeyID,
                                    publicKey: $0.publicKey)
                            })))))
        let outcome: Result<WaypointSignIn, WaypointError>
        do { outcome = .success(try await session.signIn()) } catch { outcome = .failure(error) }
        await session.close()
        await wallet.close()
        #expect(outcome.failureValue == .idToken(.signature))
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
