import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTransports
import SignerKit
import SignerKitTestSupport
import Testing

@Suite("Loopback listener")
struct LoopbackTransportTests {
    let digest = PersonalMessage.digest(Array("hello".utf8))
    /// The session's timeout (on its manual clock, which only a test of timing out advances).
    static let timeout = Duration.seconds(60)

    func makeSession(clock: ManualClock = ManualClock()) throws -> (WaypointSession, LoopbackTransport, RecordingOpener)
    {
        let opener = RecordingOpener()
        let transport = try LoopbackTransport(opener: opener.opener, clock: clock)
        return (
            WaypointSession(clientId: "c", transport: transport, timeout: Self.timeout, clock: clock), transport, opener
        )
    }

    @Test func redirectIsLoopbackWithEphemeralPort() throws {
        let (_, transport, _) = try makeSession()
        #expect(transport.port > 0)
        #expect(transport.redirectURI == "http://127.0.0.1:\(transport.port)/callback")
    }

    @Test func deliversOverRealHTTPAndAnswersTheBrowser() async throws {
        let (session, _, opener) = try makeSession()
        defer { Task { await session.close() } }
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        let requestURL = try await opener.url()
        #expect(
            requestURL.hasPrefix(
                "https://waypoint.roninchain.com/wallet/sign?clientId=c&redirect=http%3A%2F%2F127.0.0.1%3A"))
        #expect(queryParameter("message", in: requestURL) == "hello")
        #expect(queryParameter("expectAddress", in: requestURL) == TestKeys.wallet.address.checksummed)
        let signature = try await TestKeys.wallet.sign(prehash: digest)
        let callback = signedCallback(for: requestURL, signature: signature.hex)
        let page = try await HTTPClient.get(callback)
        #expect(page.status == 200)
        #expect(page.body.contains("You can close this window"))
        #expect(page.body.contains("data-outcome=accepted"))
        #expect(try await signing.value == signature)

        // The same callback again is a replay.
        let replay = try await HTTPClient.get(callback)
        #expect(replay.status == 400)
        #expect(replay.body.contains("already used"))
    }

    @Test func unknownStateIsRejectedAndTheRequestKeepsWaiting() async throws {
        let (session, transport, opener) = try makeSession()
        defer { Task { await session.close() } }
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        let requestURL = try await opener.url()
        let signature = try await TestKeys.wallet.sign(prehash: digest)
        let forged =
            "\(transport.redirectURI)?state=\(WaypointStateStore.randomState())&method=sign&type=success&data=\(signature.hex)"
        let refused = try await HTTPClient.get(forged)
        #expect(refused.status == 400)
        #expect(refused.body.contains("matches no pending request"))
        // The genuine callback still completes the request.
        let page = try await HTTPClient.get(signedCallback(for: requestURL, signature: signature.hex))
        #expect(page.status == 200)
        #expect(try await signing.value == signature)
    }

    @Test func malformedCallbackIsRefused() async throws {
        let (session, transport, _) = try makeSession()
        defer { Task { await session.close() } }
        try await session.start()
        let page = try await HTTPClient.get("\(transport.redirectURI)?state=s&state=t&method=sign&type=success&data=0x")
        #expect(page.status == 400)
        #expect(page.body.contains("repeats the state parameter"))
    }

    @Test func timeoutThenLateCallbackIsExpired() async throws {
        let clock = ManualClock()
        let (session, _, opener) = try makeSession(clock: clock)
        defer { Task { await session.close() } }
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        let requestURL = try await opener.url()
        let state = try #require(queryParameter("state", in: requestURL))
        // The request waits on the clock; a nanosecond before its timeout its state is still pending.
        await clock.sleepers(atLeast: 1)
        clock.advance(by: Self.timeout - .nanoseconds(1))
        #expect(await session.store.isPending(state))
        clock.advance(by: .nanoseconds(1))
        await #expect(throws: WaypointError.timedOut) { try await signing.value }
        #expect(await !session.store.isPending(state))
        let signature = try await TestKeys.wallet.sign(prehash: digest)
        let late = try await HTTPClient.get(signedCallback(for: requestURL, signature: signature.hex))
        #expect(late.status == 400)
        #expect(late.body.contains("expired"))
    }

    @Test("a callback a nanosecond before the timeout completes the request: the wait and the state share one deadline")
    func callbackJustBeforeTheTimeoutIsAccepted() async throws {
        let clock = ManualClock()
        let (session, _, opener) = try makeSession(clock: clock)
        defer { Task { await session.close() } }
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        let requestURL = try await opener.url()
        await clock.sleepers(atLeast: 1)
        clock.advance(by: Self.timeout - .nanoseconds(1))
        let signature = try await TestKeys.wallet.sign(prehash: digest)
        let page = try await HTTPClient.get(signedCallback(for: requestURL, signature: signature.hex))
        #expect(page.status == 200)
        #expect(try await signing.value == signature)
    }

    @Test(
        "a callback nobody reads: after the reply timeout (on the clock) the browser is told SignerKit did not answer")
    func unreadCallbackTimesOutForTheBrowser() async throws {
        let clock = ManualClock()
        let transport = try LoopbackTransport(clock: clock)
        defer { Task { await transport.stop() } }
        // No session reads the callbacks: the listener's answer waits for a verdict that never comes.
        let fetch = Task {
            try await HTTPClient.get("\(transport.redirectURI)?state=s&method=sign&type=success&data=0x")
        }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: LoopbackTransport.replyTimeout - .nanoseconds(1))
        #expect(clock.sleeperCount == 1, "the browser still waits a nanosecond before the reply timeout")
        clock.advance(by: .nanoseconds(1))
        let page = try await fetch.value
        #expect(page.status == 400)
        #expect(page.body.contains("SignerKit did not answer in time"))
    }

    @Test func callbackForAnotherMethodFailsTheRequest() async throws {
        let (session, _, opener) = try makeSession()
        defer { Task { await session.close() } }
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        let requestURL = try await opener.url()
        let page = try await HTTPClient.get(
            signedCallback(for: requestURL, signature: "0x" + String(repeating: "11", count: 32), method: "send"))
        #expect(page.status == 400)
        await #expect(throws: WaypointError.methodMismatch(expected: .sign, actual: .send)) { try await signing.value }
    }

    @Test func foreignSignatureFailsAndTheBrowserIsTold() async throws {
        let (session, _, opener) = try makeSession()
        defer { Task { await session.close() } }
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        let requestURL = try await opener.url()
        let foreign = try await TestKeys.other.sign(prehash: digest)
        let page = try await HTTPClient.get(signedCallback(for: requestURL, signature: foreign.hex))
        #expect(page.status == 400)
        #expect(page.body.contains("signature is by"))
        await #expect {
            try await signing.value
        } throws: { error in
            if case WaypointError.verificationFailed = error { return true }
            return false
        }
    }

    @Test func otherPathsMethodsAndHostsAreRefused() async throws {
        let (session, transport, _) = try makeSession()
        defer { Task { await session.close() } }
        try await session.start()
        let notFound = try await RawHTTP.get(port: transport.port, "/favicon.ico")
        #expect(notFound.status == 404)
        let post = try await RawHTTP.send(
            port: transport.port,
            "POST /callback HTTP/1.1\r\nHost: 127.0.0.1:\(transport.port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        #expect(post.status == 405)
        let rebound = try await RawHTTP.get(
            port: transport.port, "/callback?state=s", host: "evil.example:\(transport.port)")
        #expect(rebound.status == 400)
        let ok = try await RawHTTP.get(
            port: transport.port, "/callback?state=s&method=sign&type=success&data=0x",
            host: "localhost:\(transport.port)")
        #expect(ok.status == 400)  // reached the session: unknown state
        #expect(ok.headers["cache-control"] == "no-store")
        #expect(ok.headers["referrer-policy"] == "no-referrer")
    }

    @Test("a callback without exactly one Host naming the listener is refused (400) and not delivered")
    func hostHeaderMustNameTheListenerExactlyOnce() async throws {
        let (session, transport, opener) = try makeSession()
        defer { Task { await session.close() } }
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        let requestURL = try await opener.url()
        let signature = try await TestKeys.wallet.sign(prehash: digest)
        let callback = signedCallback(for: requestURL, signature: signature.hex)
        let port = transport.port
        let genuineTarget = String(callback[try #require(callback.range(of: "/callback")).lowerBound...])
        #expect(genuineTarget.hasPrefix("/callback?"))
        let hostile: [String] = [
            "",  // no Host at all
            "Host: 127.0.0.1:\(port)\r\nHost: 127.0.0.1:\(port)\r\n",  // the right one, twice
            "Host: 127.0.0.1:\(port)\r\nHost: evil.example\r\n",  // the right one and another
            "Host: evil.example\r\nHost: 127.0.0.1:\(port)\r\n",  // another one first
            "Host: 127.0.0.1:\(port &+ 1)\r\n",  // another port
            "Host: 127.0.0.1\r\n",  // no port
            "Host: evil.example:\(port)\r\n",  // a rebinding name
            "Host: \r\n",  // empty
        ]
        for headers in hostile {
            let response = try await RawHTTP.send(
                port: port, "GET \(genuineTarget) HTTP/1.1\r\n\(headers)Connection: close\r\n\r\n")
            #expect(response.status == 400, "\(headers.debugDescription)")
            #expect(response.body.contains("exactly one Host header"), "\(headers.debugDescription)")
        }
        // None of them reached the session: the request is still pending and the genuine callback,
        // with one Host naming the listener, completes it.
        let page = try await RawHTTP.get(port: port, genuineTarget, host: "127.0.0.1:\(port)")
        #expect(page.status == 200)
        #expect(page.body.contains("data-outcome=accepted"))
        #expect(try await signing.value == signature)
    }

    @Test func closedSessionFailsWaitingRequests() async throws {
        let (session, _, opener) = try makeSession()
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        _ = try await opener.url()
        await session.close()
        await #expect(throws: WaypointError.self) { try await signing.value }
        await #expect(throws: WaypointError.self) {
            try await session.signPersonalMessage("x", account: TestKeys.wallet.address)
        }
    }

    @Test func cancellationEndsTheWait() async throws {
        let (session, _, opener) = try makeSession()
        defer { Task { await session.close() } }
        let signing = Task { try await session.signPersonalMessage("hello", account: TestKeys.wallet.address) }
        _ = try await opener.url()
        signing.cancel()
        await #expect(throws: WaypointError.cancelled) { try await signing.value }
    }
}
