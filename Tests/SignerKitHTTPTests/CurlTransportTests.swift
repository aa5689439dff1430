import Foundation
import SignerKitCurl
import SignerKitTestSupport
import Testing

/// Runs `body` and returns the ``HTTPError`` it throws (an issue when it succeeds).
func httpError(_ body: () async throws(HTTPError) -> HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation)
    async -> HTTPError?
{
    do {
        let response = try await body()
        Issue.record("expected an HTTPError, got HTTP \(response.status)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The libcurl transport over real HTTP on 127.0.0.1, against the fault-injecting server.
@Suite("libcurl transport")
struct CurlTransportTests {
    let transport = CurlHTTPTransport.shared

    func request(
        _ server: FaultServer, _ path: String, method: String = "GET", body: String? = nil,
        timeout: Duration = .seconds(10), maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) throws -> HTTPRequest {
        HTTPRequest(
            method: method, url: try #require(URL(string: path, relativeTo: server.url)?.absoluteURL),
            headers: [HTTPHeader("Api-Key", "secret"), HTTPHeader("Content-Type", "application/json")],
            body: body.map { Array($0.utf8) }, timeout: timeout, maxResponseBytes: maxResponseBytes)
    }

    @Test("an answer: status, headers, body; the request is sent once with its body and headers")
    func answer() async throws {
        let server = try await FaultServer.start()
        defer { server.stop() }
        try await server.add(
            FaultRule(.respond, pathSuffix: "/ok", status: 201, body: #"{"a":1}"#, headers: ["X-Test": "yes"]),
            FaultRule(.respond, pathSuffix: "/busy", status: 503, body: "busy"))
        let body = String(repeating: "x", count: 5000)  // above libcurl's Expect: 100-continue threshold
        let response = try await transport.send(try request(server, "/v1/ok?q=1", method: "POST", body: body))
        #expect(response.status == 201)
        #expect(response.header("x-test") == "yes" && response.header("X-TEST") == "yes")
        #expect(response.body == Array(#"{"a":1}"#.utf8))
        let busy = try await transport.send(try request(server, "/busy"))
        #expect(busy.status == 503 && !busy.isSuccess)
        _ = try await transport.send(try request(server, "/empty", method: "POST"))
        _ = try await transport.send(try request(server, "/put", method: "PUT", body: "[1]"))
        let seen = try await server.requests()
        #expect(seen.count == 4)
        #expect(seen[2].method == "POST" && seen[2].body.isEmpty && seen[2].header("content-length") == "0")
        #expect(seen[3].method == "PUT" && seen[3].body == "[1]")
        #expect(seen.first?.method == "POST" && seen.first?.path == "/v1/ok?q=1")
        #expect(seen.first?.body == body)
        #expect(seen.first?.header("api-key") == "secret")
        #expect(seen.first?.header("expect") == nil)
    }

    @Test("a reset after the request was read, a forwarded-then-dropped request, a truncated body: outcome unknown")
    func lostAnswers() async throws {
        let upstream = try await FaultServer.start()
        defer { upstream.stop() }
        try await upstream.add(FaultRule(.respond, status: 200, body: String(repeating: "y", count: 400), times: -1))
        let server = try await FaultServer.start(upstream: upstream.url)
        defer { server.stop() }
        try await server.add(
            FaultRule(.reset, pathSuffix: "/reset"), FaultRule(.dropAfterForward, pathSuffix: "/drop"),
            FaultRule(.truncate, pathSuffix: "/cut"))
        for path in ["/reset", "/drop", "/cut"] {
            let error = await httpError { () async throws(HTTPError) in
                try await transport.send(try! request(server, path, method: "POST", body: "{}"))
            }
            guard case .outcomeUnknown? = error else {
                Issue.record("\(path): expected outcomeUnknown, got \(String(describing: error))")
                continue
            }
            #expect(error?.requestMayHaveBeenProcessed == true)
        }
        // Each request reached the server exactly once: libcurl never re-sent one.
        #expect(try await server.requests().map(\.path) == ["/reset", "/drop", "/cut"])
        #expect(try await upstream.requests().map(\.path) == ["/drop", "/cut"])
    }

    /// Fuzz finding (http-response): an answer libcurl cannot read (an unsupported HTTP version) came back as
    /// `notSent` although the server had the request, so a caller could have sent a POST twice.
    @Test(
        "a garbled answer after the request went out: outcome unknown, never not sent",
        arguments: [
            "HTTP/1 1.307 Temporary Redirect\r\nContent-Length: 0\r\n\r\n", "HTTP/9.9 200 OK\r\n\r\n", "\u{0}\u{1}",
        ])
    func garbledAnswer(answer: String) async throws {
        let server = try await FaultServer.start()
        defer { server.stop() }
        try await server.add(FaultRule(.raw, body: answer))
        let error = await httpError { () async throws(HTTPError) in
            try await transport.send(try! request(server, "/confirm", method: "POST", body: "{}"))
        }
        guard case .outcomeUnknown? = error else {
            Issue.record("expected outcomeUnknown, got \(String(describing: error))")
            return
        }
        #expect(try await server.requests().map(\.path) == ["/confirm"])
    }

    @Test("a refused connection: not sent")
    func refused() async throws {
        let port = try RefusingPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(port.port)/x"))
        let error = await httpError { () async throws(HTTPError) in
            try await transport.send(HTTPRequest(method: "POST", url: url, body: [1], timeout: .seconds(5)))
        }
        guard case .notSent? = error else {
            Issue.record("expected notSent, got \(String(describing: error))"); return
        }
        withExtendedLifetime(port) {}
    }

    @Test("a hang: the deadline ends the request in flight; cancellation stops it at once")
    func hangs() async throws {
        let server = try await FaultServer.start()
        defer { server.stop() }
        try await server.add(FaultRule(.hang, times: -1))
        let clock = ContinuousClock()
        let started = clock.now
        let error = await httpError { () async throws(HTTPError) in
            try await transport.send(try! request(server, "/hang", timeout: .milliseconds(600)))
        }
        #expect(error == .timeout(requestSent: true))
        // The hang never answers, so the timeout error itself says the deadline ended the transfer; it must
        // not have ended early. (How late a loaded machine resumes the caller is not this test's subject.)
        #expect(started.duration(to: clock.now) >= .milliseconds(550))

        // Cancelled once the server holds the request: the outcome is "sent", and it ends at once.
        let seenBefore = try await server.requests().count
        let task = Task { () async throws(HTTPError) -> HTTPResponse in
            try await transport.send(try! request(server, "/hang", timeout: .seconds(30)))
        }
        // The proxy records the request at its pace; the bound only ends a hang.
        _ = try await RealTime.poll(within: .seconds(30)) { try await server.requests().count > seenBefore }
        // Cancelled, not timed out: the 30 s timeout did not end it.
        task.cancel()
        let result = await task.result
        guard case .failure(let failure) = result else {
            Issue.record("expected cancelled, got \(result)"); return
        }
        #expect(failure as? HTTPError == .cancelled(requestSent: true))

        // An already-passed deadline: nothing is sent.
        let before = try await server.requests().count
        let late = HTTPRequest(method: "GET", url: server.url, deadline: clock.now.advanced(by: .milliseconds(-1)))
        #expect(
            await httpError { () async throws(HTTPError) in try await transport.send(late) }
                == .timeout(requestSent: false))
        #expect(try await server.requests().count == before)
    }

    @Test("redirects are refused, naming the Location host; the other origin sees nothing")
    func redirects() async throws {
        let other = try await FaultServer.start()
        defer { other.stop() }
        let server = try await FaultServer.start()
        defer { server.stop() }
        try await server.add(
            FaultRule(.redirect, pathSuffix: "/302", status: 302, location: other.url.absoluteString + "/steal"),
            FaultRule(.redirect, pathSuffix: "/307", status: 307, location: "https://evil.example.net/x"),
            FaultRule(.redirect, pathSuffix: "/308", status: 308, location: "/same-origin"))
        let first = await httpError { () async throws(HTTPError) in
            try await transport.send(try! request(server, "/302", method: "POST", body: "{}"))
        }
        #expect(first == .redirectRefused(status: 302, locationHost: "127.0.0.1"))
        let second = await httpError { () async throws(HTTPError) in
            try await transport.send(try! request(server, "/307"))
        }
        #expect(second == .redirectRefused(status: 307, locationHost: "evil.example.net"))
        let third = await httpError { () async throws(HTTPError) in
            try await transport.send(try! request(server, "/308"))
        }
        #expect(third == .redirectRefused(status: 308, locationHost: "127.0.0.1"))
        #expect(try await other.requests().isEmpty)
        #expect(try await server.requests().count == 3)
    }

    @Test("bodies above the cap are refused; up to the cap they are whole")
    func bodyCap() async throws {
        let server = try await FaultServer.start()
        defer { server.stop() }
        try await server.add(FaultRule(.respond, status: 200, body: String(repeating: "z", count: 3000), times: -1))
        let error = await httpError { () async throws(HTTPError) in
            try await transport.send(try! request(server, "/big", maxResponseBytes: 1000))
        }
        #expect(error == .bodyTooLarge(limit: 1000))
        let whole = try await transport.send(try request(server, "/big", maxResponseBytes: 3000))
        #expect(whole.body.count == 3000)
    }

    @Test("URLs and headers the transport refuses to send")
    func refusedRequests() async throws {
        for text in ["ftp://127.0.0.1/x", "http://user:pw@127.0.0.1/x", "file:///etc/passwd"] {
            let url = try #require(URL(string: text))
            let error = await httpError { () async throws(HTTPError) in
                try await transport.send(HTTPRequest(method: "GET", url: url, timeout: .seconds(1)))
            }
            guard case .notSent? = error else { Issue.record("\(text): \(String(describing: error))"); continue }
        }
        let url = try #require(URL(string: "http://127.0.0.1:9/x"))
        let injected = HTTPRequest(
            method: "GET", url: url, headers: [HTTPHeader("X-A", "1\r\nX-Evil: 2")], timeout: .seconds(1))
        guard case .notSent? = await httpError({ () async throws(HTTPError) in try await transport.send(injected) })
        else { Issue.record("a header with CR LF was sent"); return }
    }
}
