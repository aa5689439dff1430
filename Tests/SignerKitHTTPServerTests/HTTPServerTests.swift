import Foundation
import SignerKitCurl
import SignerKitHTTPServer
import SignerKitTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The libmicrohttpd server layer over real sockets on 127.0.0.1.
@Suite("HTTP server layer")
struct HTTPServerTests {
    static func echo(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let text =
            "\(request.method) \(request.target) host=\(request.values("host").joined(separator: ",")) "
            + "body=\(String(decoding: request.body, as: UTF8.self))"
        return HTTPServerResponse(status: 200, headers: [("X-Echo", "yes")], body: Array(text.utf8))
    }

    @Test("a request reaches the async handler with its raw target, fields and body; the answer comes back")
    func roundTrip() async throws {
        let server = try HTTPServer(handler: Self.echo)
        let url = try #require(URL(string: server.baseURLString + "/a%20b?x=1&y=%2F"))
        let response = try await CurlHTTPTransport.shared.send(
            HTTPRequest(method: "POST", url: url, body: Array("hello".utf8), timeout: .seconds(10)))
        #expect(response.status == 200)
        #expect(response.header("x-echo") == "yes")
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == "POST /a%20b?x=1&y=%2F host=127.0.0.1:\(server.port) body=hello")
        await server.stop()
    }

    @Test("keep-alive: two requests on one connection; a repeated Host is passed on for the handler to judge")
    func keepAlive() async throws {
        let server = try HTTPServer(handler: Self.echo)
        let port = server.port
        let (first, second) = try await RawClient.offPool {
            let client = try RawClient(port: port)
            client.send("GET /one HTTP/1.1\r\nHost: a\r\n\r\n")
            let first = client.readResponse()
            client.send("GET /two HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
            return (first, client.readResponse())
        }
        #expect(first?.status == 200)
        #expect(first?.body.hasPrefix("GET /one host=a ") == true)
        #expect(second?.status == 200, "\(second?.head ?? "closed")")
        #expect(second?.body.hasPrefix("GET /two host=a,b ") == true)
        await server.stop()
    }

    @Test("a declared body over the limit gets 413 without the handler; oversized headers get 431")
    func limits() async throws {
        let calls = Atomic<Int>(0)
        let server = try HTTPServer(limits: HTTPServerLimits(maxHeaderBytes: 4096, maxBodyBytes: 1000)) { request in
            calls.add(1, ordering: .relaxed)
            return await Self.echo(request)
        }
        let port = server.port
        let (large, chunked, headers, fine) = try await RawClient.offPool {
            let one = try RawClient(port: port)
            one.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n")
            let two = try RawClient(port: port)
            let chunk = String(repeating: "z", count: 600)
            two.send(
                "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n"
            )
            let three = try RawClient(port: port)
            three.send("GET /x HTTP/1.1\r\nHost: a\r\nX-Big: \(String(repeating: "h", count: 20_000))\r\n\r\n")
            let four = try RawClient(port: port)
            four.send(
                "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n\(String(repeating: "y", count: 1000))")
            return (one.readResponse(), two.readResponse(), three.readResponse(), four.readResponse())
        }
        #expect(large?.status == 413)
        #expect(chunked?.status == 413)
        #expect(headers?.status == 431)
        #expect(fine?.status == 200)
        #expect(calls.load(ordering: .relaxed) == 1)
        await server.stop()
    }

    /// The handler is held until the stop is waiting for it (``HTTPServer/isDraining``), so the order is certain:
    /// stop began, the request was still in flight, it finished, stop returned. The grace is long so that a
    /// loaded machine's delay between the two never cancels the handler.
    @Test("stop: refuses new connections, lets the request in flight finish, then returns")
    func cleanShutdown() async throws {
        let entered = Signal()
        let release = Signal()
        let server = try HTTPServer(limits: HTTPServerLimits(shutdownGrace: .seconds(30))) { _ in
            entered.fire()
            await release.fired()
            return .text(200, Task.isCancelled ? "cancelled" : "finished")
        }
        let port = server.port
        let released = DispatchSemaphore(value: 0)
        let inFlight = Task {
            try await RawClient.offPool { () -> (Int, String)? in
                let client = try RawClient(port: port, receiveTimeout: .seconds(30))
                client.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
                // Reads once the handler is released: the receive timeout bounds the answer, not this test's
                // own steps (which wait for the cooperative pool).
                released.wait()
                return client.readResponse().map { ($0.status, $0.body) }
            }
        }
        await entered.fired()
        let stopReturned = Atomic<Bool>(false)
        let stopping = Task {
            await server.stop()
            stopReturned.store(true, ordering: .releasing)
        }
        // The stop thread reaches its wait at the scheduler's pace; the bound only ends a hang.
        let draining = await RealTime.poll(within: .seconds(30)) { server.isDraining }
        #expect(draining, "stop never waited for the request in flight")
        let returnedEarly = stopReturned.load(ordering: .acquiring)
        #expect(!returnedEarly, "stop returned while a request was in flight")
        release.fire()
        released.signal()
        await stopping.value
        let answer = try await inFlight.value
        #expect(answer?.0 == 200)
        #expect(answer?.1 == "finished")
        #expect(throws: (any Error).self) { try RawClient(port: port) }
    }

    /// The client starts reading only once the stop has begun (on a thread of its own), so its receive timeout
    /// bounds the stop's own steps (about 0.2 + 6 s), never this test's waits for the cooperative pool.
    @Test("stop ends even when a handler ignores cancellation: its connection gets 503 after the bounds")
    func stopWithStuckHandler() async throws {
        let entered = AsyncStream<Void>.makeStream()
        let stuck = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let limits = HTTPServerLimits(connectionTimeoutSeconds: 1, shutdownGrace: .milliseconds(200))
        let server = try HTTPServer(limits: limits) { _ in
            // Waits for a continuation nobody resumes before the server has stopped, ignoring cancellation.
            await withCheckedContinuation { continuation in
                stuck.withLock { $0 = continuation }
                entered.continuation.yield()
            }
            return .text(200, "late")
        }
        let port = server.port
        let stopBegun = DispatchSemaphore(value: 0)
        let answer = Task {
            try await RawClient.offPool { () -> Int? in
                let client = try RawClient(port: port, receiveTimeout: .seconds(30))
                client.send("GET /stuck HTTP/1.1\r\nHost: a\r\n\r\n")
                stopBegun.wait()
                return client.readResponse()?.status
            }
        }
        for await _ in entered.stream { break }
        server.stopWithoutWaiting()  // grace, cancel, wait, abandon: about 0.2 + 6 s, on a thread of its own
        stopBegun.signal()
        await server.stop()
        #expect(try await answer.value == 503)
        stuck.withLock { $0?.resume() }
    }

    /// The order proves it: the quick answer arrives while the eight wait. The client side runs on a thread of
    /// its own and the server answers on its connections' threads, so no step waits for the cooperative pool;
    /// the bounds only end a hang.
    @Test("many handlers suspended at once do not stall the server (its thread never waits for them)")
    func suspendedHandlers() async throws {
        let release = Mutex<[CheckedContinuation<Void, Never>]>([])
        let server = try HTTPServer { request in
            if request.path == "/wait" {
                await withCheckedContinuation { continuation in release.withLock { $0.append(continuation) } }
            }
            return .text(200, String(request.path))
        }
        let port = server.port
        let (suspended, quick, released) = try await RawClient.offPool {
            () throws -> (Bool, (status: Int, head: String, body: String)?, [Int?]) in
            let waiting = try (0..<8).map { _ in try RawClient(port: port, receiveTimeout: .seconds(30)) }
            for client in waiting { client.send("GET /wait HTTP/1.1\r\nHost: a\r\n\r\n") }
            let suspended = RealTime.pollBlocking(within: .seconds(30)) { release.withLock({ $0.count }) >= 8 }
            let client = try RawClient(port: port, receiveTimeout: .seconds(30))
            client.send("GET /quick HTTP/1.1\r\nHost: a\r\n\r\n")
            let quick = client.readResponse()
            for continuation in release.withLock({ $0 }) { continuation.resume() }
            return (suspended, quick, waiting.map { $0.readResponse()?.status })
        }
        #expect(suspended, "the eight handlers did not all suspend")
        #expect(quick?.body == "/quick")
        #expect(released == Array(repeating: 200, count: 8))
        await server.stop()
    }

    @Test("a handler may drop the connection; a bad address is a typed error")
    func dropAndBadAddress() async throws {
        let server = try HTTPServer { _ in .drop }
        let port = server.port
        let closed = try await RawClient.offPool {
            let client = try RawClient(port: port)
            client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            return client.serverClosed()
        }
        #expect(closed)
        await server.stop()
        #expect(throws: HTTPServerError.self) { try HTTPServer(host: "not-an-address") { _ in .drop } }
    }
}

/// The server's sockets never leak into child processes.
@Suite("HTTP server layer: descriptors")
struct HTTPServerDescriptorTests {
    @Test("the listening socket and an accepted connection are close-on-exec")
    func closeOnExec() async throws {
        let server = try HTTPServer { _ in .text(200, "ok") }
        let port = server.port
        let flags = try await RawClient.offPool { () -> [Int32] in
            let client = try RawClient(port: port)
            client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            _ = client.readResponse()
            // The connection stays open (keep-alive): both server-side sockets exist now.
            return Self.descriptorFlags(localPort: port)
        }
        #expect(flags.count >= 2, "expected the listener and the accepted connection")
        for flag in flags { #expect(flag & FD_CLOEXEC != 0) }
        await server.stop()
    }

    /// `F_GETFD` of every socket in this process whose local port is `localPort` (the server's side).
    static func descriptorFlags(localPort: UInt16) -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return names.compactMap(Int32.init).compactMap { fd -> Int32? in
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
            }
            guard named, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == localPort
            else { return nil }
            return fcntl(fd, F_GETFD)
        }
    }
}

/// Answers do not depend on Swift's cooperative pool being free.
@Suite("HTTP server layer: cooperative pool")
struct HTTPServerPoolTests {
    @Test("a handler that suspends still answers while every cooperative thread is blocked")
    func answersWithThePoolBlocked() async throws {
        let server = try HTTPServer { _ in
            // A real suspension on work another thread finishes, as an fsync or an upstream call is (the
            // subject: the handler resumes although every pool thread is blocked).
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread { continuation.resume() }.start()
            }
            return .text(200, "answered")
        }
        let port = server.port
        let status = try await RawClient.offPool { () throws -> Int? in
            // Occupy every thread of the cooperative pool (one per core) until released.
            let release = DispatchSemaphore(value: 0)
            let started = StartCounter()
            let width = ProcessInfo.processInfo.activeProcessorCount
            for _ in 0..<width {
                Task.detached {
                    started.count.add(1, ordering: .relaxed)
                    release.wait()
                }
            }
            _ = RealTime.pollBlocking(within: .seconds(30)) { started.count.load(ordering: .relaxed) >= width }
            defer { for _ in 0..<width { release.signal() } }
            let client = try RawClient(port: port)
            client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            return client.readResponse()?.status
        }
        #expect(status == 200)
        await server.stop()
    }
}

/// Counts the tasks that occupy the pool.
final class StartCounter: Sendable {
    let count = Atomic<Int>(0)
}
