import Foundation
import SignerKitHTTPServer
import SignerKitTestSupport
import Testing

@Suite("HTTP server: the connection limit")
struct ConnectionLimitTests {
    @Test("beyond maxConnections a connection is closed unanswered, idle keep-alive ones counted; a freed slot serves")
    func connectionLimit() async throws {
        let limits = HTTPServerLimits(maxConnections: 2, connectionTimeoutSeconds: 60)
        let server = try HTTPServer(limits: limits) { request in await HTTPServerTests.echo(request) }
        let port = server.port
        let (held, whileFull, afterClose) = try await RawClient.offPool { () throws -> ([Int?], Bool, Int?) in
            // Two keep-alive connections, each answered once and then left open and idle.
            let first = try RawClient(port: port)
            var second: RawClient? = try RawClient(port: port)
            first.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n")
            second?.send("GET /b HTTP/1.1\r\nHost: a\r\n\r\n")
            let held = [first.readResponse()?.status, second?.readResponse()?.status]
            // A third is closed without an answer while both stay open.
            let third = try RawClient(port: port, receiveTimeout: .seconds(5))
            third.send("GET /c HTTP/1.1\r\nHost: a\r\n\r\n")
            let whileFull = third.readResponse() == nil
            second = nil  // closes one of the two
            // The server notices the close at the kernel's pace (the socket is the subject); a new connection
            // then gets the slot. Until then each try is closed unanswered; the bound only ends a hang.
            var afterClose: Int?
            _ = RealTime.pollBlocking(within: .seconds(30)) {
                guard let fourth = try? RawClient(port: port, receiveTimeout: .seconds(5)) else { return false }
                fourth.send("GET /d HTTP/1.1\r\nHost: a\r\n\r\n")
                afterClose = fourth.readResponse()?.status
                return afterClose != nil
            }
            withExtendedLifetime(first) {}
            return (held, whileFull, afterClose)
        }
        #expect(held == [200, 200])
        #expect(whileFull, "no answer while two connections are open")
        #expect(afterClose == 200, "served once a slot is free")
        await server.stop()
    }
}
