import Foundation
import SignerKit
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
/// others; the socket itself is mode 0600, and every connection's peer must be the same user
/// (`SO_PEERCRED` / `getpeereid`). The deliverer checks the directory the same way before it sends,
/// so a callback (which may carry an ID token) never goes to a socket another user planted.
///
/// Wire format: the deliverer writes the URL and `\n`; the signer answers one line, `ok <text>` or
/// `rejected <text>`, and closes.
public final class DeepLinkTransport: WaypointTransport {
    /// The custom-scheme redirect, e.g. `mydapp://callback`.
    public let redirectURI: String
    /// The socket's path.
    public let socketPath: String
    private let opener: URLOpener
    private let listener: Int32
    private let state = Mutex<(started: Bool, stopped: Bool)>((false, false))
    private let finished = OneShot<Void>()
    private let events: AsyncStream<TransportEvent>
    private let continuation: AsyncStream<TransportEvent>.Continuation

    /// The socket file's name inside the per-user directory.
    public static let socketName = "waypoint.sock"
    /// Longest URL a deliverer may send.
    public static let maximumURLLength = 256 * 1024

    /// Binds the socket at `socketPath` (default ``defaultSocketPath()``) for callbacks to
    /// `redirectURI`; `opener` shows each request URL.
    ///
    /// - Throws: ``WaypointError/transport(_:)`` when the directory is not private to this user,
    ///   another signer is already waiting on the socket, or binding fails;
    ///   ``WaypointError/invalidRequest(_:)`` for a redirect without a custom scheme.
    public init(redirectURI: String, socketPath: String? = nil, opener: URLOpener = .none) throws(WaypointError) {
        guard let colon = redirectURI.firstIndex(of: ":"), colon != redirectURI.startIndex,
            !["http", "https"].contains(redirectURI[..<colon].lowercased()), !redirectURI.contains("?")
        else {
            throw .invalidRequest("deep-link redirect \(redirectURI) must use a custom scheme, e.g. mydapp://callback")
        }
        let path = socketPath ?? Self.defaultSocketPath()
        try Self.checkDirectory(of: path, create: true)
        if access(path, F_OK) == 0 {
            if let fd = try? POSIXSocket.connectUnix(path: path) {
                close(fd)
                throw .transport("another signer is already waiting on \(path)")
            }
            unlink(path)
        }
        listener = try POSIXSocket.listenUnix(path: path)
        self.redirectURI = redirectURI
        self.socketPath = path
        self.opener = opener
        (events, continuation) = AsyncStream<TransportEvent>.makeStream()
    }

    deinit {
        if state.withLock({ !$0.started && !$0.stopped }) {
            close(listener)
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
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.stopped
        }
        if first {
            let thread = Thread { [self] in acceptLoop() }
            thread.name = "signerkit-deep-link"
            thread.start()
        }
        return events
    }

    /// Hands the request URL to the opener.
    public func open(_ request: PreparedRequest) async throws(WaypointError) {
        try await opener.open(request.url)
    }

    /// Closes and removes the socket and ends the stream.
    public func stop() async {
        let (running, neverStarted) = state.withLock { state -> (Bool, Bool) in
            defer { state.stopped = true }
            return (state.started && !state.stopped, !state.started && !state.stopped)
        }
        if running { await finished.value() }
        if neverStarted {
            close(listener)
            unlink(socketPath)
        }
        continuation.finish()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        POSIXSocket.acceptConnections(on: listener, threadName: "signerkit-deep-link-conn", isStopped: { isStopped }) {
            [self] client in
            serve(client)
        }
        close(listener)
        unlink(socketPath)
        finished.fulfill(())
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard POSIXSocket.peerUserID(client) == getuid() else { return }
        POSIXSocket.setTimeouts(client, seconds: 5)
        guard let data = POSIXSocket.read(client, limit: Self.maximumURLLength + 1, isComplete: { $0.contains(10) }),
            let newline = data.firstIndex(of: 10)
        else {
            POSIXSocket.write(client, Array("rejected no URL received\n".utf8))
            return
        }
        let url = String(decoding: data[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let reply = OneShot<CallbackReply>()
        if case .terminated = continuation.yield(.callback(IncomingCallback(url: url) { reply.fulfill($0) })) {
            reply.fulfill(.rejected("the signer is no longer waiting"))
        }
        // This is a connection thread of its own: it may block, bounded, without touching the pool.
        if reply.wait(seconds: 60) == nil { reply.fulfill(.rejected("the signer did not answer in time")) }
        let answer = reply.wait(seconds: 0) ?? .rejected("the signer did not answer in time")
        let text = answer.text.replacingOccurrences(of: "\n", with: " ")
        POSIXSocket.setTimeouts(client, seconds: 5)
        POSIXSocket.write(client, Array("\(answer.isAccepted ? "ok" : "rejected") \(text)\n".utf8))
    }

    // MARK: - Delivering

    /// Forwards a callback URL to the signer waiting on `socketPath` (default ``defaultSocketPath()``)
    /// and returns its answer. Blocks the calling thread for up to `timeoutSeconds`.
    ///
    /// - Throws: ``WaypointError/transport(_:)`` when the directory is not private to this user, no
    ///   signer is waiting, or the exchange fails.
    public static func deliver(_ url: String, socketPath: String? = nil, timeoutSeconds: Int = 60) throws(WaypointError)
        -> CallbackReply
    {
        guard url.utf8.count <= maximumURLLength, !url.contains("\n") else {
            throw .transport("the URL is too long or has a line break")
        }
        let path = socketPath ?? defaultSocketPath()
        try checkDirectory(of: path, create: false)
        let fd: Int32
        do { fd = try POSIXSocket.connectUnix(path: path) } catch {
            throw .transport("no signer is waiting on \(path)")
        }
        defer { close(fd) }
        POSIXSocket.setTimeouts(fd, seconds: timeoutSeconds)
        guard POSIXSocket.write(fd, Array((url + "\n").utf8)) else { throw .transport("cannot send to \(path)") }
        guard let data = POSIXSocket.read(fd, limit: 64 * 1024, isComplete: { $0.contains(10) }),
            let newline = data.firstIndex(of: 10)
        else { throw .transport("no answer from the signer on \(path)") }
        let line = String(decoding: data[..<newline], as: UTF8.self)
        if line.hasPrefix("ok") { return .accepted(String(line.dropFirst(2).drop { $0 == " " })) }
        if line.hasPrefix("rejected") { return .rejected(String(line.dropFirst(8).drop { $0 == " " })) }
        throw .transport("unexpected answer from the signer")
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
            guard errno == ENOENT, create else { throw .transport("\(directory): \(POSIXSocket.reason(errno))") }
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                throw .transport("cannot create \(directory): \(POSIXSocket.reason(errno))")
            }
            guard lstat(directory, &info) == 0 else { throw .transport("\(directory): \(POSIXSocket.reason(errno))") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .transport("\(directory) is not a directory") }
        guard info.st_uid == getuid() else { throw .transport("\(directory) belongs to another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw .transport(
                "\(directory) is accessible to other users (mode \(String(info.st_mode & 0o777, radix: 8)))")
        }
    }
}
