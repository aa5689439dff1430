import Foundation
import SignerKitCurl
import SignerKitHTTPServer
import SignerKitTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The server layer on a Unix-domain socket, reached by libcurl's `CURLOPT_UNIX_SOCKET_PATH`.
@Suite("HTTP server layer on a Unix-domain socket")
struct UnixSocketServerTests {
    func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sk-ux-\(UUID().uuidString.prefix(8))"
        ).path
        guard mkdir(directory, 0o700) == 0 else { throw CancellationError() }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    func send(_ method: String, to path: String, body: [UInt8]? = nil) async throws -> HTTPResponse {
        let url = try #require(URL(string: "http://localhost/who"))
        var request = HTTPRequest(method: method, url: url, body: body, timeout: .seconds(20))
        request.unixSocketPath = path
        return try await CurlHTTPTransport.shared.send(request)
    }

    @Test("the socket is mode 0600; each request carries the peer's user id; TCP requests carry none")
    func peerUserID() async throws {
        try await withDirectory { directory in
            let path = directory + "/s.sock"
            let server = try HTTPServer(unixSocketPath: path) { request in
                .text(200, "\(request.method) \(request.target) uid=\(request.peerUserID.map(String.init) ?? "none")")
            }
            var info = stat()
            #expect(lstat(path, &info) == 0)
            #expect(info.st_mode & S_IFMT == S_IFSOCK)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(UnixSocket.isAccepting(path: path))
            let response = try await send("POST", to: path, body: Array("x".utf8))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "POST /who uid=\(getuid())")
            await server.stop()
            #expect(!UnixSocket.isAccepting(path: path))  // the file stays, nothing answers

            let tcp = try HTTPServer { request in .text(200, request.peerUserID.map(String.init) ?? "none") }
            let url = try #require(URL(string: tcp.baseURLString + "/"))
            let answer = try await CurlHTTPTransport.shared.send(
                HTTPRequest(method: "GET", url: url, timeout: .seconds(20)))
            #expect(String(decoding: answer.body, as: UTF8.self) == "none")
            await tcp.stop()
        }
    }

    @Test("a path that exists, a relative path or one too long is a typed error; nothing listens")
    func badPaths() async throws {
        try await withDirectory { directory in
            let taken = directory + "/taken"
            #expect(FileManager.default.createFile(atPath: taken, contents: Data()))
            #expect(throws: HTTPServerError.self) { try HTTPServer(unixSocketPath: taken) { _ in .text(200, "") } }
            #expect(throws: HTTPServerError.self) {
                try HTTPServer(unixSocketPath: "relative.sock") { _ in .text(200, "") }
            }
            let long = directory + "/" + String(repeating: "a", count: 200)
            #expect(throws: HTTPServerError.self) { try HTTPServer(unixSocketPath: long) { _ in .text(200, "") } }
            #expect(!UnixSocket.isAccepting(path: taken))
        }
    }

    /// The process's umask as the kernel reports it (`Umask:` in /proc/self/status), read without setting it.
    static func currentUmask() -> String? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return status.split(separator: "\n").first { $0.hasPrefix("Umask:") }.map(String.init)
    }

    @Test("binding never changes the process's umask (other threads of the app create files meanwhile)")
    func umaskUntouched() async throws {
        guard let before = Self.currentUmask() else { return }  // no /proc: nothing to observe
        let seen = Mutex<Set<String>>([])
        let done = Atomic<Bool>(false)
        let watching = Signal()
        let finished = Signal()
        let watcher = Thread {
            var announced = false
            while !done.load(ordering: .acquiring) {
                if let mask = Self.currentUmask() { seen.withLock { _ = $0.insert(mask) } }
                if !announced {
                    watching.fire()
                    announced = true
                }
            }
            finished.fire()
        }
        watcher.start()
        await watching.fired()  // it reads before the first bind, so it cannot miss the binds by starting late
        try await withDirectory { directory in
            for index in 0..<150 {
                let server = try HTTPServer(unixSocketPath: directory + "/s\(index).sock") { _ in .text(200, "") }
                await server.stop()
            }
        }
        done.store(true, ordering: .releasing)
        await finished.fired()
        // The watcher reads the file many times per bind; with the umask changed around bind it saw the change.
        #expect(seen.withLock { $0 } == [before])
    }
}
