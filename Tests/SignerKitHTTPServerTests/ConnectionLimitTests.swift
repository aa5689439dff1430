import Foundation
import SignerKitHTTPServer
import Testing

@Suite("HTTP server: the connection limit")
struct ConnectionLimitTests {
    @Test("beyond maxConnections a connection waits unaccepted, idle keep-alive ones counted, until one closes")
    func connectionLimit() async throws {
        let limits = HTTPServerLimits(maxConnections: 2, connectionTimeoutSeconds: 60)
        let server = try HTTPServer(limits: limits) { request in await HTTPServerTests.echo(request) }
        let port = server.port
        let (held, whileFull, afterClose) = try await RawClient.offPool { () throws -> ([Int?], Int?, Int?) in
            // Two keep-alive connections, each answered once and then left open and idle.
            let first = try RawClient(port: port)
            var second: RawClient? = try RawClient(port: port)
            first.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n")
            second?.send("GET /b HTTP/1.1\r\nHost: a\r\n\r\n")
            let held = [first.readResponse()?.status, second?.readResponse()?.status]
            // A third connects (the kernel's backlog) and sends, but is not served while both stay open.
            let third = try RawClient(port: port, receiveTimeout: .seconds(1))
            third.send("GET /c HTTP/1.1\r\nHost: a\r\n\r\n")
            let whileFull = third.readResponse()?.status
            second = nil  // closes one of the two: the server then takes the third
            var afterClose: Int?
            for _ in 0..<15 where afterClose == nil { afterClose = third.readResponse()?.status }
            withExtendedLifetime(first) {}
            return (held, whileFull, afterClose)
        }
        #expect(held == [200, 200])
        #expect(whileFull == nil, "no answer while two connections are open")
        #expect(afterClose == 200, "served once a slot is free")
        await server.stop()
    }
}
