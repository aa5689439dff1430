import Foundation
import SignerKitHTTPServer
import SignerKitTestSupport
import Synchronization
import Testing

/// Message framing (RFC 9112 §6) and header fields libmicrohttpd would cut short, over raw sockets to a real
/// server: every refusal comes at once, before any body is read, never reaches the handler, and closes the
/// connection (a request pipelined behind it is not answered).
@Suite("HTTP server: request framing and intact header fields")
struct FramingTests {
    /// What the server made of `request` sent in one piece on a fresh connection: the first answer's status
    /// and body, and whether the server then closed without answering anything more.
    static func exchange(_ port: UInt16, _ request: String) throws -> (status: Int?, body: String, closed: Bool) {
        try exchange(port, Array(request.utf8))
    }

    static func exchange(_ port: UInt16, _ request: [UInt8]) throws -> (status: Int?, body: String, closed: Bool) {
        let client = try RawClient(port: port, receiveTimeout: .seconds(5))
        client.send(request)
        let answer = client.readResponse()
        return (answer?.status, answer?.body ?? "", client.serverClosed())
    }

    /// Requests that reached a handler.
    final class Calls: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// A server echoing method, target and body, counting the requests that reach it.
    static func echoServer(calls: Calls) throws -> HTTPServer {
        try HTTPServer { request in
            calls.add()
            return .text(200, "\(request.method) \(request.target) \(String(decoding: request.body, as: UTF8.self))")
        }
    }

    @Test("Content-Length with Transfer-Encoding, disagreeing lengths, unknown or misplaced codings: refused at once")
    func ambiguousFraming() async throws {
        let calls = Calls()
        let server = try Self.echoServer(calls: calls)
        let port = server.port
        let pipelined = "GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n"
        let cases: [(String, Int)] = [
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 7\r\n\r\n{}", 400),
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 9\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\nxyz", 501),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nxyz", 400),
            ("POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ]
        let outcomes = try await RawClient.offPool {
            try cases.map { (request, _) in try Self.exchange(port, request + pipelined) }
        }
        for ((request, status), outcome) in zip(cases, outcomes) {
            #expect(outcome.status == status, "\(request.debugDescription)")
            #expect(
                outcome.closed,
                "closed after the refusal, the pipelined request unanswered: \(request.debugDescription)")
        }
        #expect(calls.count == 0, "no refused request reaches the handler")
        await server.stop()
    }

    @Test("sound framing is served: repeated equal lengths, a chunked body, keep-alive after it")
    func soundFraming() async throws {
        let calls = Calls()
        let server = try Self.echoServer(calls: calls)
        let port = server.port
        let (repeated, chunked, next) = try await RawClient.offPool {
            let repeated = try Self.exchange(
                port,
                "POST /r HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
            let client = try RawClient(port: port, receiveTimeout: .seconds(5))
            client.send(
                "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n")
            let chunked = client.readResponse()
            client.send("GET /n HTTP/1.1\r\nHost: a\r\n\r\n")
            return (repeated, chunked, client.readResponse())
        }
        #expect(repeated.status == 200 && repeated.body == "POST /r {}")
        #expect(chunked?.status == 200 && chunked?.body == "POST /c hello")
        #expect(next?.status == 200 && next?.body == "GET /n ")
        await server.stop()
    }

    @Test("a header field cut short by a NUL byte, or folded over lines, is refused with 400; odd but whole heads pass")
    func intactFields() async throws {
        let calls = Calls()
        let server = try Self.echoServer(calls: calls)
        let port = server.port
        let (cut, folded, odd) = try await RawClient.offPool {
            let cut = try Self.exchange(
                port,
                Array("GET /nul HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer good".utf8) + [0]
                    + Array("junk\r\nX-After: 1\r\n\r\n".utf8))
            let folded = try Self.exchange(port, "GET /fold HTTP/1.1\r\nHost: a\r\nX-A: one\r\n two\r\n\r\n")
            // Bare LF line ends, a tab and trailing blanks, an empty value, a cookie.
            let odd = try Self.exchange(
                port, "GET /odd HTTP/1.1\nHost: a\nX-Tab:\tv  \nX-Empty:\nCookie: a=b; c=d\nConnection: close\n\n")
            return (cut, folded, odd)
        }
        #expect(cut.status == 400 && cut.closed)
        #expect(folded.status == 400 && folded.closed)
        #expect(odd.status == 200 && odd.body == "GET /odd ")
        #expect(calls.count == 1, "only the whole head reaches the handler")
        await server.stop()
    }
}
