import EIP712
import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTesting
import RedirectSignerTransports
import SignerKit
import SignerKitTestSupport
import Synchronization
import Testing

/// The end-to-end path a user takes: a real browser opens the request URL on the simulated hosted
/// wallet, the user clicks Approve (or Reject), the wallet answers with a 302 to SignerKit's
/// loopback listener, and the dispatcher returns the verified result among software-key results.
///
/// Locally the suite is skipped when `/usr/bin/chromium` is missing; with `CI=true` a missing
/// browser fails the run.
@Suite(
    "Headless Chromium round trip", .serialized,
    .enabled(
        if: HeadlessChromium.isAvailable || HeadlessChromium.isCI, "chromium not installed (apt-get install chromium)"))
struct ChromiumRoundTripTests {
    /// What the browser saw for one request.
    struct Visit: Sendable {
        let requestURL: String
        let outcome: String
        let finalURL: String
    }

    /// An opener that drives a Chromium tab: open the URL, wait for the approval page, click `button`,
    /// wait for the listener's page. The session opens beside its wait, so the driver runs to its end right
    /// there; a driver that fails fails the request with its reason instead of leaving it waiting.
    final class Clicker: Sendable {
        let chromium: HeadlessChromium
        let button: String
        private let opened = Mutex(0)
        private let outcomes = Arrivals<Result<Visit, TestFailure>>()

        init(chromium: HeadlessChromium, button: String) {
            self.chromium = chromium
            self.button = button
        }

        var opener: URLOpener {
            URLOpener { (url) throws(WaypointError) in
                self.opened.withLock { $0 += 1 }
                do {
                    let visit = try await self.visit(url)
                    self.outcomes.append(.success(visit))
                } catch {
                    self.outcomes.append(.failure(TestFailure("\(error)")))
                    throw .transport("browser driver: \(error)")
                }
            }
        }

        private func visit(_ url: String) async throws -> Visit {
            let session = try await chromium.openTab(url)
            _ = try await chromium.waitFor("document.querySelector('#\(button)') !== null", session: session)
            _ = try await chromium.evaluate("document.querySelector('#\(button)').click()", session: session)
            let seen = try await chromium.waitFor(
                "(document.getElementById('result') && location.href.indexOf('/callback') > 0) ? "
                    + "document.getElementById('result').dataset.outcome + ' ' + location.href : ''",
                session: session)
            let parts = seen.split(separator: " ", maxSplits: 1).map(String.init)
            return Visit(requestURL: url, outcome: parts[0], finalURL: parts.count > 1 ? parts[1] : "")
        }

        /// The visits, once the browser is done with every URL opened so far; and the driver's failures.
        func settled() async throws -> (visits: [Visit], errors: [String]) {
            var visits: [Visit] = []
            var errors: [String] = []
            for outcome in try await outcomes.atLeast(opened.withLock { $0 }) {
                switch outcome {
                case .success(let visit): visits.append(visit)
                case .failure(let failure): errors.append(failure.description)
                }
            }
            return (visits, errors)
        }
    }

    func launch() throws -> HeadlessChromium? {
        guard HeadlessChromium.isAvailable else {
            Issue.record(
                "CI=true but \(HeadlessChromium.executablePath) is missing: install Debian's chromium package (apt-get install -y chromium)"
            )
            return nil
        }
        return try HeadlessChromium()
    }

    @Test func approveInTheBrowserThroughTheDispatcher() async throws {
        guard let chromium = try launch() else { return }
        let simulator = try HostedWalletSimulator(configuration: .init(signer: TestKeys.wallet, clientId: "e2e-client"))
        let clicker = Clicker(chromium: chromium, button: "approve")
        let clock = ManualClock()
        let session = WaypointSession(
            origin: simulator.origin, clientId: "e2e-client",
            transport: try LoopbackTransport(opener: clicker.opener, clock: clock), clock: clock)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(TestKeys.software)
        try dispatcher.register(WaypointSigner(session: session, accounts: [TestKeys.wallet.address]))

        let actions = [
            MixedBatch.personalSign("software before", by: TestKeys.software.address),
            try MixedBatch.typedData(by: TestKeys.wallet.address),
            MixedBatch.personalSign("software after", by: TestKeys.software.address),
            MixedBatch.personalSign("approved in Chromium: 1+1 & #", by: TestKeys.wallet.address),
        ]
        let outcome: Result<SignedActions, any Error>
        do { outcome = .success(try await dispatcher.sign(actions: actions)) } catch { outcome = .failure(error) }
        let (visits, errors) = try await clicker.settled()
        await session.close()
        await simulator.stop()
        await chromium.close()

        let signed = try outcome.get()
        #expect(errors.isEmpty, "browser driver: \(errors) \(chromium.log)")
        #expect(signed.answers(actions))
        let typedDigest = try TypedData(jsonText: Fixtures.typedDataJSON).digest()
        MixedBatch.expectSignature(
            signed.outcomes[0], by: TestKeys.software.address,
            digest: PersonalMessage.digest(Array("software before".utf8)))
        MixedBatch.expectSignature(signed.outcomes[1], by: TestKeys.wallet.address, digest: typedDigest)
        MixedBatch.expectSignature(
            signed.outcomes[2], by: TestKeys.software.address,
            digest: PersonalMessage.digest(Array("software after".utf8)))
        MixedBatch.expectSignature(
            signed.outcomes[3], by: TestKeys.wallet.address,
            digest: PersonalMessage.digest(Array("approved in Chromium: 1+1 & #".utf8)))
        #expect(visits.count == 2)
        for visit in visits {
            #expect(visit.outcome == "accepted")
            #expect(visit.finalURL.hasPrefix(session.redirectURI + "?"))
            #expect(visit.requestURL.hasPrefix(simulator.origin + "/wallet/sign?clientId=e2e-client&"))
        }
        #expect(simulator.receivedRequests.contains { $0.parameters["message"] == "approved in Chromium: 1+1 & #" })
    }

    @Test func signInInTheBrowserVerifiesTheIDToken() async throws {
        guard let chromium = try launch() else { return }
        let simulator = try HostedWalletSimulator(configuration: .init(signer: TestKeys.wallet, clientId: "e2e-client"))
        let clicker = Clicker(chromium: chromium, button: "approve")
        let keys = JWKSProvider(location: simulator.origin + "/.well-known/jwks.json")
        let clock = ManualClock()
        let session = WaypointSession(
            origin: simulator.origin, clientId: "e2e-client",
            transport: try LoopbackTransport(opener: clicker.opener, clock: clock), clock: clock,
            idTokenVerifier: IDTokenVerifier(issuer: simulator.origin, clientID: "e2e-client", keys: keys))
        let outcome: Result<(WaypointAuthorization, WaypointSignIn), any Error>
        do {
            let auth = try await session.authorize()
            let identityOnly = try await session.signIn(scope: ["openid"], pkce: true)
            outcome = .success((auth, identityOnly))
        } catch { outcome = .failure(error) }
        let (visits, errors) = try await clicker.settled()
        await session.close()
        await simulator.stop()
        await chromium.close()

        let (auth, identityOnly) = try outcome.get()
        #expect(errors.isEmpty, "browser driver: \(errors) \(chromium.log)")
        #expect(auth.address == TestKeys.wallet.address)
        #expect(auth.identity?.subject == TestKeys.wallet.address.lowercased)
        #expect(auth.identity?.audience == ["e2e-client"])
        #expect(identityOnly.address == nil)
        #expect(identityOnly.exchangedCode)
        #expect(identityOnly.identity?.issuer == simulator.origin)
        #expect(keys.loadCount == 1)
        #expect(visits.count == 2)
        for visit in visits {
            #expect(visit.outcome == "accepted")
            #expect(visit.requestURL.hasPrefix(simulator.origin + "/client/e2e-client/authorize?clientId=e2e-client&"))
        }
        #expect(visits.contains { $0.finalURL.contains("authorization_code=") })
    }

    @Test func rejectInTheBrowserFailsTheBatch() async throws {
        guard let chromium = try launch() else { return }
        let simulator = try HostedWalletSimulator(configuration: .init(signer: TestKeys.wallet))
        let clicker = Clicker(chromium: chromium, button: "reject")
        let clock = ManualClock()
        let session = WaypointSession(
            origin: simulator.origin, clientId: "c",
            transport: try LoopbackTransport(opener: clicker.opener, clock: clock), clock: clock)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(TestKeys.software)
        try dispatcher.register(WaypointSigner(session: session, accounts: [TestKeys.wallet.address]))
        var caught: (any Error)?
        do {
            _ = try await dispatcher.sign(actions: [
                MixedBatch.personalSign("fine", by: TestKeys.software.address),
                MixedBatch.send(from: TestKeys.wallet.address, to: TestKeys.other.address, value: "1"),
            ])
        } catch {
            caught = error
        }
        let (visits, errors) = try await clicker.settled()
        await session.close()
        await simulator.stop()
        await chromium.close()

        #expect(errors.isEmpty, "browser driver: \(errors) \(chromium.log)")
        guard let error = caught as? DispatchError, case .backend(.rejected(let text)) = error.kind else {
            Issue.record("expected a rejection, got \(String(describing: caught))")
            return
        }
        #expect(error.index == 1)
        #expect(text.contains("WALLET_USER_CANCEL"))
        // The listener accepted the (well-formed) failure callback; the page reflects SignerKit's answer.
        #expect(visits.first?.outcome == "rejected")
    }
}
