import Foundation
import SignerKitHTTPServer
import SignerKitTestSupport
import Synchronization
import Testing

/// Slow and hostile clients against a real server on loopback: a slowloris run, the request receive deadline.
@Suite("HTTP server: slow clients")
struct SlowClientTests {
    static let authorization = "Bearer legitimate-7f3a"

    /// As the signer service judges heads: the token is credentials, a POST without it is refused at once.
    static let headCheck: HTTPServer.HeadCheck = { head in
        if head.header("authorization") == authorization { return .credentialed }
        return head.method == "POST" ? .refuse(.text(401, "unauthorized")) : .anonymous
    }

    /// One request of the client with the token on a fresh connection from 127.0.0.1 (the hardest case: it
    /// needs a slot); whether it was answered 200.
    static func legitimateRequest(port: UInt16) -> Bool {
        guard let client = try? RawClient(port: port, receiveTimeout: .seconds(3)) else { return false }
        client.send("POST / HTTP/1.1\r\nHost: a\r\nAuthorization: \(authorization)\r\nContent-Length: 2\r\n\r\n{}")
        return client.readResponse()?.status == 200
    }

    /// The attack fills 32 slots many times over from six addresses, the client's own among them, trickling
    /// headers (or, from one address, a body) every half second. The client sends each request half a tick
    /// after the attacker's reconnections (when the attack is at full strength, not in the instant its
    /// reconnections race the server's closes), and a request that fails is tried once more a tick later. The
    /// figures are printed for the record; the receive deadline is set beyond the test so that only making
    /// room for newcomers can serve the client. Real time: the subject is the operating system's sockets; the
    /// only waits are the attacker's ticks (about 10 s in all), and nothing is asserted about durations.
    @Test("slowloris from six addresses, the client's own included, holds no slot against the client with a token")
    func slowloris() async throws {
        let limits = HTTPServerLimits(
            maxConnections: 32, maxConnectionsPerAddress: 16, connectionTimeoutSeconds: 60,
            requestReceiveTimeout: .seconds(60))
        let server = try HTTPServer(limits: limits, headCheck: Self.headCheck) { _ in .text(200, "signed") }
        let port = server.port
        let tick = Duration.milliseconds(500)
        let attack = Slowloris(
            port: port,
            sources: [
                ("127.0.0.1", .headers), ("127.0.0.2", .headers), ("127.0.0.3", .headers), ("127.0.0.4", .headers),
                ("127.0.0.5", .headers), ("127.0.0.6", .body),
            ], socketsPerSource: 12, tick: tick)
        attack.start()
        let requests = 12
        let (firstTry, served) = try await RawClient.offPool { () -> (Int, Int) in
            var firstTry = 0
            var served = 0
            func midTick(after ticks: Int) -> Bool { attack.awaitMidTick(after: ticks) }
            // Two ticks: every slot is taken.
            guard midTick(after: 1) else { return (0, 0) }
            for _ in 0..<requests {
                guard midTick(after: attack.ticks) else { break }
                if Self.legitimateRequest(port: port) {
                    firstTry += 1
                    served += 1
                } else if midTick(after: attack.ticks), Self.legitimateRequest(port: port) {
                    served += 1
                }
            }
            return (firstTry, served)
        }
        attack.stop()
        await server.stop()
        print(
            "slowloris: \(served)/\(requests) served (\(firstTry) at the first try); attacker held up to "
                + "\(attack.peakHeld) connections, opened \(attack.opened)")
        #expect(attack.peakHeld >= 24, "the attack held most of the 32 slots")
        #expect(served == requests, "\(firstTry) at the first try")
    }
}

extension SlowClientTests {
    /// The deadline is read on a manual clock; the sweeping thread looks every 250 ms of real time, so each
    /// step waits up to 300 ms for the close (a close seen late only makes the clock reading larger, which the
    /// bound below allows).
    @Test("a request trickling in on a keep-alive connection is closed once the server's clock passes its deadline")
    func receiveDeadline() async throws {
        let clock = ManualClock()
        // libmicrohttpd's idle timeout (real time) counts while the handler waits for the cooperative pool, which a
        // full run keeps busy for a minute and more: far off, so that only the receive deadline is the subject.
        let limits = HTTPServerLimits(connectionTimeoutSeconds: 3600, requestReceiveTimeout: .seconds(5))
        let server = try HTTPServer(limits: limits, clock: clock) { _ in .text(200, "ok") }
        let port = server.port
        let (first, closedAt) = try await RawClient.offPool { () -> (Int?, Int?) in
            let client = try RawClient(port: port, receiveTimeout: .seconds(20))
            client.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n")
            let first = client.readResponse()?.status
            client.send("GET /b HTTP/1.1\r\nHost: a\r\n")
            for seconds in 1...30 {
                clock.advance(by: .seconds(1))
                client.send("X-Step-\(seconds): 1\r\n")
                if RealTime.pollBlocking(within: .milliseconds(300), until: { !client.isWaiting }) {
                    return (first, seconds)
                }
            }
            return (first, nil)
        }
        #expect(first == 200)
        let seconds = try #require(closedAt, "closed within 30 s of the server's clock")
        #expect(seconds >= 5, "not before the deadline, though bytes kept arriving")
        await server.stop()
    }
}
