import EthereumPrimitives
import Foundation
import RedirectSigner
import SignerKit
import SignerKitCurl
import SignerKitHTTPServer
import SignerKitSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Receives custom-scheme callbacks (`mydapp://callback?…`): the OS hands the URL to the registered
/// handler, `signerkit waypoint deliver <url>`, which forwards it over a Unix-domain socket to the
/// signer waiting here.
///
/// The socket lives in a per-user directory (``defaultSocketPath()``: `$XDG_RUNTIME_DIR/signerkit`,
/// else `/tmp/signerkit-<uid>`), which must be a real directory owned by the user with no access for
/// others; the socket itself is mode 0600, and every request's peer must be the same user
/// (`SO_PEERCRED` / `getpeereid`). The deliverer checks the directory the same way before it sends,
/// so a callback (which may carry an ID token) never goes to a socket another user planted.
///
/// Wire format: HTTP/1.1 on the socket (the package's one server layer, libmicrohttpd; the deliverer
/// is libcurl). `POST /callback` with the URL as a `text/plain` body; the answer is 200 with the
/// signer's text when the callback was accepted, 422 with its reason when it was rejected.
public final class DeepLinkTransport: WaypointTransport {
    /// The custom-scheme redirect, e.g. `mydapp://callback`.
    public let redirectURI: String
    /// The socket's path.
    public let socketPath: String
    private let opener: URLOpener
    private let inbox: DeepLinkInbox
    private let server: HTTPServer

    /// The socket file's name inside the per-user directory.
    public static let socketName = "waypoint.sock"
    /// How long a deliverer waits for the signer's verdict before it is told the signer did not answer.
    public static let replyTimeout = Duration.seconds(60)
    /// Longest URL a deliverer may send.
    public static let maximumURLLength = 256 * 1024
    /// The request path deliveries are posted to.
    static let deliveryPath = "/callback"
    /// The status of a rejected callback (200 is accepted; anything else is a transport failure).
    static let rejectedStatus = 422

    /// Binds the socket at `socketPath` (default ``defaultSocketPath()``) for callbacks to
    /// `redirectURI`; `opener` shows each request URL. Deliveries are refused until ``start()``. A
    /// deliverer's wait for the signer's verdict (``replyTimeout``) runs on `clock` (default: the system
    /// clock).
    ///
    /// - Throws: `WaypointError/transport(_:)` when the directory is not private to this user,
    ///   another signer is already waiting on the socket, or binding fails;
    ///   `WaypointError/invalidRequest(_:)` for a redirect without a custom scheme.
    public init(
        redirectURI: String, socketPath: String? = nil, opener: URLOpener = .none,
        clock: any SignerClock = SystemClock()
    ) throws(WaypointError) {
        guard let colon = redirectURI.firstIndex(of: ":"), colon != redirectURI.startIndex,
            !["http", "https"].contains(redirectURI[..<colon].lowercased()), !redirectURI.contains("?")
        else {
            throw .invalidRequest("deep-link redirect \(redirectURI) must use a custom scheme, e.g. mydapp://callback")
        }
        let path = socketPath ?? Self.defaultSocketPath()
        try Self.checkDirectory(of: path, create: true)
        if access(path, F_OK) == 0 {
            if UnixSocket.isAccepting(path: path) { throw .transport("another signer is already waiting on \(path)") }
            unlink(path)
        }
        let inbox = DeepLinkInbox(clock: clock)
        do {
            server = try HTTPServer(
                unixSocketPath: path,
                limits: HTTPServerLimits(maxConnections: 16, maxBodyBytes: Self.maximumURLLength + 2)
            ) { request in await inbox.handle(request) }
        } catch {
            throw .transport(error.description)
        }
        self.inbox = inbox
        self.redirectURI = redirectURI
        self.socketPath = path
        self.opener = opener
    }

    deinit {
        if inbox.stop() {
            server.stopWithoutWaiting()
            unlink(socketPath)
        }
    }

    /// `$XDG_RUNTIME_DIR/signerkit/waypoint.sock` when that variable names a directory, else
    /// `<tmp>/signerkit-<uid>/waypoint.sock`.
    public static func defaultSocketPath() -> String {
        let environment = ProcessInfo.processInfo.environment
        var isDirectory: ObjCBool = false
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
            FileManager.default.fileExists(atPath: runtime, isDirectory: &isDirectory), isDirectory.boolValue
        {
            return "\(runtime)/signerkit/\(socketName)"
        }
        var temporary = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        while temporary.count > 1, temporary.hasSuffix("/") { temporary.removeLast() }
        return "\(temporary)/signerkit-\(getuid())/\(socketName)"
    }

    /// Starts accepting deliveries.
    public func start() async throws(WaypointError) -> AsyncStream<TransportEvent> {
        inbox.start()
    }

    /// Hands the request URL to the opener.
    public func open(_ request: PreparedRequest) async throws(WaypointError) {
        try await opener.open(request.url)
    }

    /// Closes and removes the socket and ends the stream.
    public func stop() async {
        guard inbox.stop() else { return }
        await server.stop()
        unlink(socketPath)
    }

    // MARK: - Delivering

    /// Forwards a callback URL to the signer waiting on `socketPath` (default ``defaultSocketPath()``)
    /// and returns its answer, within `timeout`.
    ///
    /// - Throws: `WaypointError/transport(_:)` when the directory is not private to this user, no
    ///   signer is waiting, or the exchange fails.
    public static func deliver(
        _ url: String, socketPath: String? = nil, timeout: Duration = .seconds(65),
        transport: any HTTPTransport = CurlHTTPTransport()
    ) async throws(WaypointError) -> CallbackReply {
        guard url.utf8.count <= maximumURLLength, !url.contains("\n") else {
            throw .transport("the URL is too long or has a line break")
        }
        let path = socketPath ?? defaultSocketPath()
        try checkDirectory(of: path, create: false)
        guard let endpoint = URL(string: "http://localhost\(deliveryPath)") else {
            throw .transport("cannot form the delivery URL")
        }
        var request = HTTPRequest(
            method: "POST", url: endpoint, headers: [HTTPHeader("Content-Type", "text/plain; charset=utf-8")],
            body: Array(url.utf8), timeout: timeout, connectTimeout: .seconds(5), maxResponseBytes: 64 * 1024)
        request.unixSocketPath = path
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            if case .notSent = error { throw .transport("no signer is waiting on \(path)") }
            throw .transport("no answer from the signer on \(path): \(error)")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        switch response.status {
        case 200: return .accepted(text)
        case rejectedStatus: return .rejected(text)
        default: throw .transport("the signer on \(path) answered \(response.status): \(EchoedText.abbreviated(text))")
        }
    }

    /// Checks (creating it with mode 0700 when `create`) that the socket's directory is a real
    /// directory owned by this user, with no permissions for group or others.
    static func checkDirectory(of socketPath: String, create: Bool) throws(WaypointError) {
        guard let slash = socketPath.lastIndex(of: "/"), slash != socketPath.startIndex else {
            throw .transport("socket path \(socketPath) must be absolute, in a private directory")
        }
        let directory = String(socketPath[..<slash])
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard errno == ENOENT, create else { throw .transport("\(directory): \(SystemError.current.description)") }
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                throw .transport("cannot create \(directory): \(SystemError.current.description)")
            }
            guard lstat(directory, &info) == 0 else {
                throw .transport("\(directory): \(SystemError.current.description)")
            }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .transport("\(directory) is not a directory") }
        guard info.st_uid == getuid() else { throw .transport("\(directory) belongs to another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw .transport(
                "\(directory) is accessible to other users (mode \(String(info.st_mode & 0o777, radix: 8)))")
        }
    }
}

/// The deep-link transport's receiving side: the events stream, and the handler the socket's server runs.
final class DeepLinkInbox: Sendable {
    private let state = Mutex<(started: Bool, stopped: Bool)>((false, false))
    private let events: AsyncStream<TransportEvent>
    private let continuation: AsyncStream<TransportEvent>.Continuation
    /// Where the deliverer's wait for a verdict (``DeepLinkTransport/replyTimeout``) is timed.
    private let clock: any SignerClock

    init(clock: any SignerClock) {
        (events, continuation) = AsyncStream<TransportEvent>.makeStream()
        self.clock = clock
    }

    /// Opens the inbox and returns its events.
    func start() -> AsyncStream<TransportEvent> {
        state.withLock { $0.started = true }
        return events
    }

    /// Closes the inbox and ends the stream; true on the first call only.
    func stop() -> Bool {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { continuation.finish() }
        return first
    }

    /// Serves one delivery: same user only, `POST /callback` with the URL as its body.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let peer = request.peerUserID, peer == getuid() else {
            return .text(403, "the deliverer is another user")
        }
        guard request.path == DeepLinkTransport.deliveryPath else { return .text(404, "not found") }
        guard request.method == "POST" else { return .text(405, "POST the callback URL") }
        guard
            let url = String(validating: request.body, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines),
            !url.isEmpty, url.utf8.count <= DeepLinkTransport.maximumURLLength, !url.contains("\n")
        else {
            return .text(DeepLinkTransport.rejectedStatus, "no URL received")
        }
        guard state.withLock({ $0.started && !$0.stopped }) else {
            return .text(DeepLinkTransport.rejectedStatus, "the signer is not waiting")
        }
        let reply = OneShot<CallbackReply>()
        if case .terminated = continuation.yield(.callback(IncomingCallback(url: url) { _ = reply.fulfill($0) })) {
            _ = reply.fulfill(.rejected("the signer is no longer waiting"))
        }
        let answer = await reply.value(
            until: clock.now.advanced(by: DeepLinkTransport.replyTimeout), on: clock,
            expired: .rejected("the signer did not answer in time"), cancelled: .rejected("the signer is stopping"))
        let text = answer.text.replacingOccurrences(of: "\n", with: " ")
        return .text(answer.isAccepted ? 200 : DeepLinkTransport.rejectedStatus, text)
    }
}
