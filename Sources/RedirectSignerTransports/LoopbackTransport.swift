import EthereumPrimitives
import Foundation
import RedirectSigner
import SignerKitHTTPServer

/// Receives callbacks on a loopback HTTP listener: the redirect is `http://127.0.0.1:PORT/callback`
/// (an ephemeral port unless one is given), and the browser that follows the wallet's redirect gets a small page
/// saying whether SignerKit accepted the answer and that the window can be closed.
///
/// The socket is bound when the transport is created, so ``redirectURI`` is known before any
/// request is built. Only `GET` on the callback path is served, and only to a request with exactly
/// one `Host` header, `127.0.0.1:PORT` or `localhost:PORT` (the two names of this listener, the
/// port being the bound one): a request without one, with two, or naming another host (a DNS
/// rebinding page, a proxy) is refused with 400 and never delivered. Pages are `no-store` and
/// `no-referrer`, so the callback's signature or ID token does not linger in caches or leak to
/// other sites.
public final class LoopbackTransport: WaypointTransport {
    /// The bound port.
    public let port: UInt16
    /// The callback path, e.g. `/callback`.
    public let path: String
    /// `http://127.0.0.1:PORT/callback` (or with `localhost`).
    public let redirectURI: String
    /// How long the browser that delivered a callback waits for SignerKit's verdict before its page says
    /// SignerKit did not answer (a callback that arrived while no session reads the stream).
    public static let replyTimeout = Duration.seconds(60)
    private let server: HTTPServer
    private let opener: URLOpener
    private let events: AsyncStream<TransportEvent>
    private let continuation: AsyncStream<TransportEvent>.Continuation

    /// Binds 127.0.0.1:`port` (0: an ephemeral port) for callbacks on `path`; `opener` shows each
    /// request URL to the user (a browser, a printed line, a test's headless browser). `host` is how
    /// the redirect names the listener: `127.0.0.1` (default) or `localhost`, whichever the dapp
    /// registered; the socket is bound to 127.0.0.1 either way. The browser's wait for a verdict
    /// (``replyTimeout``) runs on `clock` (default: the system clock).
    ///
    /// - Throws: `WaypointError/transport(_:)` when the port cannot be bound,
    ///   `WaypointError/invalidRequest(_:)` for a bad path or host.
    public init(
        port: UInt16 = 0, path: String = "/callback", host: String = "127.0.0.1", opener: URLOpener = .none,
        clock: any SignerClock = SystemClock()
    ) throws(WaypointError) {
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#"), !path.contains(" ") else {
            throw .invalidRequest("callback path \(path) must start with / and have no query")
        }
        guard host == "127.0.0.1" || host == "localhost" else {
            throw .invalidRequest("the loopback listener is 127.0.0.1 or localhost, not \(host)")
        }
        let (stream, continuation) = AsyncStream<TransportEvent>.makeStream()
        // The port is known only once bound; the handler reads it from here (set before any request
        // can name it in a Host header).
        let bound = Locked<(origin: String, hosts: Set<String>)>(("", []))
        server = try startLoopbackServer(port: port) { request in
            let (origin, hosts) = bound.value
            return await Self.handle(
                request, path: path, hosts: hosts, origin: origin, clock: clock, continuation: continuation)
        }
        let origin = "http://\(host):\(server.port)"
        bound.value = (origin, ["127.0.0.1:\(server.port)", "localhost:\(server.port)"])
        self.port = server.port
        self.path = path
        redirectURI = origin + path
        self.opener = opener
        events = stream
        self.continuation = continuation
    }

    /// Returns the callbacks (the listener serves from ``init(port:path:host:opener:clock:)`` on; a callback
    /// that arrives first waits in the stream).
    public func start() async throws(WaypointError) -> AsyncStream<TransportEvent> {
        events
    }

    /// Hands the request URL to the opener.
    public func open(_ request: PreparedRequest) async throws(WaypointError) {
        try await opener.open(request.url)
    }

    /// Closes the port and ends the callback stream.
    public func stop() async {
        await server.stop()
        continuation.finish()
    }

    private static func handle(
        _ request: HTTPServerRequest, path: String, hosts: Set<String>, origin: String, clock: any SignerClock,
        continuation: AsyncStream<TransportEvent>.Continuation
    ) async -> HTTPServerResponse {
        guard request.listenerHost(among: hosts) != nil else {
            return .html(
                400,
                HTML.page(
                    title: "Wrong host",
                    body: "<p class=bad>A callback must carry exactly one Host header naming this listener.</p>"))
        }
        guard request.path == path else {
            return .html(404, HTML.page(title: "Not found", body: "<p>Nothing here.</p>"))
        }
        guard request.method == "GET" else {
            return .html(405, HTML.page(title: "Method not allowed", body: "<p>Use GET.</p>"))
        }
        let reply = OneShot<CallbackReply>()
        let url = origin + request.target
        if case .terminated = continuation.yield(.callback(IncomingCallback(url: url) { reply.fulfill($0) })) {
            reply.fulfill(.rejected("SignerKit is no longer waiting for this response"))
        }
        let answer = await reply.value(
            until: clock.now.advanced(by: replyTimeout), on: clock,
            expired: .rejected("SignerKit did not answer in time"),
            cancelled: .rejected("SignerKit is stopping"))
        return CallbackPage.response(for: answer)
    }
}

/// The page a browser sees after delivering a callback.
enum CallbackPage {
    static func response(for reply: CallbackReply) -> HTTPServerResponse {
        switch reply {
        case .accepted(let text):
            .html(
                200,
                HTML.page(
                    title: "SignerKit: done",
                    body: """
                        <h1 class=ok id=result data-outcome=accepted>Done</h1><p id=detail>\(HTML.escape(text))</p>
                        <p>You can close this window.</p>
                        """))
        case .rejected(let text):
            .html(
                400,
                HTML.page(
                    title: "SignerKit: refused",
                    body: """
                        <h1 class=bad id=result data-outcome=rejected>SignerKit refused this response</h1>
                        <p id=detail>\(HTML.escape(text))</p><p>You can close this window.</p>
                        """))
        }
    }
}

extension URLOpener {
    /// Opens URLs with the desktop's browser: `xdg-open` on Linux and BSD, `open` on macOS. The
    /// command is started and not waited for.
    public static let systemBrowser: URLOpener = {
        #if os(macOS)
            return command("/usr/bin/open")
        #else
            return command("xdg-open")
        #endif
    }()

    /// Runs `executable URL` (found on `PATH` when not absolute) without waiting for it.
    public static func command(_ executable: String) -> URLOpener {
        URLOpener { (url) throws(WaypointError) in
            let process = Process()
            if executable.hasPrefix("/") {
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = [url]
            } else {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = [executable, url]
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch { throw .transport("cannot start \(executable): \(error)") }
            // A real wait, the child process being its subject: reap it by polling (waitUntilExit can spin on Linux).
            Thread.detachNewThread { while process.isRunning { usleep(50_000) } }
        }
    }

    /// Announces each URL through `write` (e.g. a line on stderr) and opens nothing.
    public static func announce(_ write: @escaping @Sendable (String) -> Void) -> URLOpener {
        URLOpener { url in write(url) }
    }

    /// Runs `first`, then `second`.
    public func then(_ second: URLOpener) -> URLOpener {
        let first = self
        return URLOpener { (url) throws(WaypointError) in
            try await first.open(url)
            try await second.open(url)
        }
    }
}
