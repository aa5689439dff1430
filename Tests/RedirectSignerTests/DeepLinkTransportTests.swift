import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTransports
import SignerKit
import SignerKitTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Deep-link delivery over a Unix socket")
struct DeepLinkTransportTests {
    /// Runs `body` with a socket path in a fresh directory of `mode`, removed afterwards.
    func withSocketPath(mode: mode_t = 0o700, _ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sk-dl-\(UUID().uuidString.prefix(8))"
        ).path
        guard mkdir(directory, mode) == 0, chmod(directory, mode) == 0 else { throw TestFailure("mkdir failed") }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory + "/waypoint.sock")
    }

    @Test func callbackDeliveredOverTheSocket() async throws {
        try await withSocketPath { path in
            let opener = RecordingOpener()
            let clock = ManualClock()
            let transport = try DeepLinkTransport(
                redirectURI: "mydapp://callback", socketPath: path, opener: opener.opener, clock: clock)
            let session = WaypointSession(clientId: "c", transport: transport, clock: clock)
            var info = stat()
            #expect(lstat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)

            let signing = Task { try await session.signPersonalMessage("deep link", account: TestKeys.wallet.address) }
            let requestURL = try await opener.url()
            #expect(queryParameter("redirect", in: requestURL) == "mydapp://callback")
            let signature = try await TestKeys.wallet.sign(prehash: PersonalMessage.digest(Array("deep link".utf8)))
            let callback = signedCallback(for: requestURL, signature: signature.hex)
            #expect(callback.hasPrefix("mydapp://callback?state="))
            let reply = try await DeepLinkTransport.deliver(
                callback, socketPath: path, timeout: exchangeDeadline,
                transport: ProgressBoundedTransport(within: exchangeDeadline))
            #expect(reply.isAccepted)
            #expect(try await signing.value == signature)

            let replay = try await DeepLinkTransport.deliver(
                callback, socketPath: path, timeout: exchangeDeadline,
                transport: ProgressBoundedTransport(within: exchangeDeadline))
            #expect(replay == .rejected(WaypointError.replayedState.description))
            await session.close()
        }
    }

    @Test func unknownStateAndWrongRedirectAreRejected() async throws {
        try await withSocketPath { path in
            let opener = RecordingOpener()
            let clock = ManualClock()
            let transport = try DeepLinkTransport(
                redirectURI: "mydapp://callback", socketPath: path, opener: opener.opener, clock: clock)
            let session = WaypointSession(clientId: "c", transport: transport, clock: clock)
            let signing = Task { try await session.signPersonalMessage("x", account: TestKeys.wallet.address) }
            let requestURL = try await opener.url()
            let unknown = try await DeepLinkTransport.deliver(
                "mydapp://callback?state=nope&method=sign&type=success&data=0x", socketPath: path,
                timeout: exchangeDeadline, transport: ProgressBoundedTransport(within: exchangeDeadline))
            #expect(unknown == .rejected(WaypointError.unknownState.description))
            // The right state delivered to another scheme: the pending request fails.
            let state = queryParameter("state", in: requestURL) ?? ""
            let elsewhere = try await DeepLinkTransport.deliver(
                "otherapp://callback?state=\(state)&method=sign&type=success&data=0x", socketPath: path,
                timeout: exchangeDeadline, transport: ProgressBoundedTransport(within: exchangeDeadline))
            #expect(!elsewhere.isAccepted)
            await #expect(
                throws: WaypointError.redirectMismatch(expected: "mydapp://callback", actual: "otherapp://callback")
            ) {
                try await signing.value
            }
            await session.close()
        }
    }

    @Test func failureCallbackIsDeliveredAsWalletFailure() async throws {
        try await withSocketPath { path in
            let opener = RecordingOpener()
            let clock = ManualClock()
            let session = WaypointSession(
                clientId: "c",
                transport: try DeepLinkTransport(
                    redirectURI: "mydapp://cb", socketPath: path, opener: opener.opener, clock: clock),
                clock: clock)
            let authorizing = Task { try await session.authorize() }
            let requestURL = try await opener.url()
            let state = queryParameter("state", in: requestURL) ?? ""
            let reply = try await DeepLinkTransport.deliver(
                "mydapp://cb?state=\(state)&method=auth&type=fail&code=1004&message=%5BAUTHORIZE_INVALID_PAYLOAD%5D+Bad+scope",
                socketPath: path, timeout: exchangeDeadline,
                transport: ProgressBoundedTransport(within: exchangeDeadline))
            #expect(!reply.isAccepted)
            await #expect(
                throws: WaypointError.walletFailure(
                    WaypointFailure(
                        code: .authorizeInvalidPayload, name: "AUTHORIZE_INVALID_PAYLOAD", message: "Bad scope"))
            ) { try await authorizing.value }
            await session.close()
        }
    }

    @Test func directoryOpenToOthersIsRefused() async throws {
        try await withSocketPath(mode: 0o755) { path in
            #expect(throws: WaypointError.self) { try DeepLinkTransport(redirectURI: "mydapp://cb", socketPath: path) }
            await #expect(throws: WaypointError.self) {
                try await DeepLinkTransport.deliver(
                    "mydapp://cb?state=s", socketPath: path, timeout: exchangeDeadline,
                    transport: ProgressBoundedTransport(within: exchangeDeadline))
            }
        }
    }

    @Test func secondListenerAndMissingListener() async throws {
        try await withSocketPath { path in
            await #expect(throws: WaypointError.transport("no signer is waiting on \(path)")) {
                try await DeepLinkTransport.deliver(
                    "mydapp://cb?state=s", socketPath: path, timeout: exchangeDeadline,
                    transport: ProgressBoundedTransport(within: exchangeDeadline))
            }
            let first = try DeepLinkTransport(redirectURI: "mydapp://cb", socketPath: path)
            _ = try await first.start()
            #expect(throws: WaypointError.transport("another signer is already waiting on \(path)")) {
                try DeepLinkTransport(redirectURI: "mydapp://cb", socketPath: path)
            }
            await first.stop()
            #expect(access(path, F_OK) != 0)
            // A stale socket file left behind is replaced.
            let second = try DeepLinkTransport(redirectURI: "mydapp://cb", socketPath: path)
            await second.stop()
        }
    }

    @Test("before start() a delivery is rejected, never queued; after stop() nothing answers")
    func deliveryBeforeStartIsRejected() async throws {
        try await withSocketPath { path in
            let transport = try DeepLinkTransport(redirectURI: "mydapp://cb", socketPath: path)
            let early = try await DeepLinkTransport.deliver(
                "mydapp://cb?state=s", socketPath: path, timeout: exchangeDeadline,
                transport: ProgressBoundedTransport(within: exchangeDeadline))
            #expect(early == .rejected("the signer is not waiting"))
            let events = try await transport.start()
            let reader = Task { () -> String? in
                for await event in events {
                    if case .callback(let callback) = event {
                        callback.reply(.accepted("got it"))
                        return callback.url
                    }
                }
                return nil
            }
            let reply = try await DeepLinkTransport.deliver(
                "  mydapp://cb?state=t  ", socketPath: path, timeout: exchangeDeadline,
                transport: ProgressBoundedTransport(within: exchangeDeadline))
            #expect(reply == .accepted("got it"))
            #expect(await reader.value == "mydapp://cb?state=t")
            await transport.stop()
            #expect(access(path, F_OK) != 0)
            await #expect(throws: WaypointError.transport("no signer is waiting on \(path)")) {
                try await DeepLinkTransport.deliver(
                    "mydapp://cb?state=s", socketPath: path, timeout: exchangeDeadline,
                    transport: ProgressBoundedTransport(within: exchangeDeadline))
            }
        }
    }

    @Test(
        "a delivery nobody reads: after the reply timeout (on the clock) the deliverer is told the signer did not answer"
    )
    func unreadDeliveryTimesOut() async throws {
        try await withSocketPath { path in
            let clock = ManualClock()
            let transport = try DeepLinkTransport(redirectURI: "mydapp://cb", socketPath: path, clock: clock)
            _ = try await transport.start()  // accepting, but nothing reads the callbacks
            let delivery = Task {
                try await DeepLinkTransport.deliver(
                    "mydapp://cb?state=s", socketPath: path, timeout: exchangeDeadline,
                    transport: ProgressBoundedTransport(within: exchangeDeadline))
            }
            await clock.sleepers(atLeast: 1)
            clock.advance(by: DeepLinkTransport.replyTimeout - .nanoseconds(1))
            #expect(clock.sleeperCount == 1, "the deliverer still waits a nanosecond before the reply timeout")
            clock.advance(by: .nanoseconds(1))
            #expect(try await delivery.value == .rejected("the signer did not answer in time"))
            await transport.stop()
        }
    }

    @Test func httpRedirectIsNotADeepLink() {
        #expect(throws: WaypointError.self) { try DeepLinkTransport(redirectURI: "http://127.0.0.1/cb") }
    }

    @Test func defaultSocketPathIsPerUser() {
        let path = DeepLinkTransport.defaultSocketPath()
        #expect(path.hasSuffix("/waypoint.sock"))
        #expect(path.contains("signerkit"))
    }
}

@Suite("Manual transport")
struct ManualTransportTests {
    /// Lines a test feeds to the transport's blocking reader, and what the transport writes back.
    final class Feeder: Sendable {
        private let lines = Mutex<[String?]>([])
        private let available = DispatchSemaphore(value: 0)
        let written = Arrivals<String>()

        func feed(_ line: String?) {
            lines.withLock { $0.append(line) }
            available.signal()
        }

        /// Blocks until a line is fed: the transport calls it on a thread of its own, never the pool's.
        func readLine() -> String? {
            available.wait()
            return lines.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
    }

    @Test func pastedCallbackCompletesTheRequest() async throws {
        let feeder = Feeder()
        let transport = ManualTransport(
            redirectURI: "http://localhost/waypoint", readLine: { feeder.readLine() },
            write: { text in feeder.written.append(text) })
        let session = WaypointSession(clientId: "c", transport: transport, clock: ManualClock())
        let signing = Task { try await session.signPersonalMessage("manual", account: TestKeys.wallet.address) }
        let instructions = try await feeder.written.element(0)
        #expect(instructions.hasPrefix("open: https://waypoint.roninchain.com/wallet/sign?"))
        let requestURL = String(try #require(instructions.split(separator: "\n").first).dropFirst("open: ".count))
        let signature = try await TestKeys.wallet.sign(prehash: PersonalMessage.digest(Array("manual".utf8)))
        feeder.feed("   garbage line   ")
        feeder.feed("")
        feeder.feed("  " + signedCallback(for: requestURL, signature: signature.hex) + "  \r")
        #expect(try await signing.value == signature)
        // The instructions, then one outcome per non-empty line, in the order the lines were read.
        let outcomes = try await feeder.written.atLeast(3).dropFirst()
        #expect(outcomes.count == 2, "\(outcomes)")
        #expect(outcomes.first?.hasPrefix("rejected: malformed callback URL") == true, "\(outcomes)")
        #expect(outcomes.last == "accepted: Signature received and verified.\n", "\(outcomes)")
        feeder.feed(nil)
        await session.close()
    }
}
