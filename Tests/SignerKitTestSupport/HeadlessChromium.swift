import EthereumPrimitives
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Headless Chromium driven over the DevTools protocol on `--remote-debugging-pipe` (commands on the
/// child's fd 3, replies on fd 4, each message JSON ended by a NUL byte). The pipe is used because
/// this platform's FoundationNetworking has no WebSocket support.
///
/// The browser runs with `--no-sandbox --headless=new --disable-gpu`, a throw-away profile, no
/// background networking, and a host-resolver rule that resolves no name except loopback, so it
/// talks to nothing but the test's own 127.0.0.1 servers.
public final class HeadlessChromium: Sendable {
    /// Why driving the browser failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String

        /// A failure saying `description`.
        public init(_ description: String) { self.description = description }
    }

    /// Where tests look for the browser (Debian's `chromium` package); `SIGNERKIT_CHROMIUM` overrides.
    public static var executablePath: String {
        ProcessInfo.processInfo.environment["SIGNERKIT_CHROMIUM"] ?? "/usr/bin/chromium"
    }

    /// Whether the browser is installed.
    public static var isAvailable: Bool { access(executablePath, X_OK) == 0 }

    /// Whether this run is CI (`CI=true`), where a missing browser is a failure, not a skip.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The browser's process id (this process's child).
    public let pid: pid_t
    /// The throw-away profile directory (removed by ``close()``).
    public let profile: String
    private let commands: Int32
    private let replies: Int32
    private let nextID = Mutex(0)
    private let waiters = Mutex<[Int: CheckedContinuation<JSONValue, any Error>]>([:])
    private let closed = Mutex(false)

    /// Starts the browser on a fresh profile, with the DevTools pipe as its only extra descriptors.
    public init() throws {
        let executable = Self.executablePath
        guard Self.isAvailable else { throw Failure("\(executable) is not installed (apt-get install chromium)") }
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("sk-chromium-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw Failure("pipe failed") }
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // Keep the child's ends clear of 3 and 4 so that dup2 below always copies (and drops CLOEXEC).
        let childReads = fcntl(toChild[0], F_DUPFD_CLOEXEC, 10)
        let childWrites = fcntl(fromChild[1], F_DUPFD_CLOEXEC, 10)
        Glibc.close(toChild[0])
        Glibc.close(fromChild[1])
        let arguments = [
            executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)",
            "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
            "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--no-pings",
            "--metrics-recording-only", "--disable-breakpad", "--password-store=basic", "--use-mock-keychain",
            "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication,DialMediaRouteProvider",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "about:blank",
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "\(profile)/chromium.log", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, childReads, 3)
        posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
        // Nothing else: a descriptor another test has open without close-on-exec at this moment (the
        // socket pair Foundation's Process watches for a child's exit, a pipe's write end) must not
        // live on in the browser, or that child's exit or end of file goes unseen while it runs.
        Self.closeFrom(5, in: &actions)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { posix_spawn(&child, executable, &actions, nil, $0, environ) } ?? -1
        }
        Glibc.close(childReads)
        Glibc.close(childWrites)
        guard spawned == 0 else {
            Glibc.close(toChild[1])
            Glibc.close(fromChild[0])
            throw Failure("posix_spawn \(executable) failed: \(spawned)")
        }
        pid = child
        commands = toChild[1]
        replies = fromChild[0]
        let thread = Thread { [self] in readLoop() }
        thread.name = "chromium-cdp-reader"
        thread.start()
    }

    /// Adds "close every descriptor from `lowest` up" to `actions`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34+, looked up at run time because the Swift
    /// module does not export it), else a close for each descriptor open now.
    public static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            if unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest) == 0 { return }
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd >= lowest {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    /// Sends one DevTools command and returns its `result`.
    public func send(_ method: String, _ params: JSONObject = JSONObject(), session: String? = nil) async throws
        -> JSONValue
    {
        let id = nextID.withLock { value -> Int in
            value += 1
            return value
        }
        var message = JSONObject(["id": .number(String(id)), "method": .string(method), "params": .object(params)])
        if let session { message["sessionId"] = .string(session) }
        let bytes = Array(JSONValue.object(message).serialized.utf8) + [0]
        let reply = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<JSONValue, any Error>) in
            waiters.withLock { $0[id] = continuation }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { raw in
                    raw.baseAddress.map { write(commands, $0 + offset, raw.count - offset) } ?? -1
                }
                if written <= 0 {
                    if let waiter = waiters.withLock({ $0.removeValue(forKey: id) }) {
                        waiter.resume(throwing: Failure("cannot write to Chromium"))
                    }
                    return
                }
                offset += written
            }
        }
        if let error = reply["error"] { throw Failure("\(method): \(error.serialized)") }
        return reply["result"] ?? .null
    }

    /// Evaluates JavaScript in a page session and returns its value.
    public func evaluate(_ expression: String, session: String, context: Int? = nil) async throws -> JSONValue {
        var parameters = JSONObject(["expression": .string(expression), "returnByValue": .bool(true)])
        if let context { parameters["contextId"] = .number(String(context)) }
        let result = try await send("Runtime.evaluate", parameters, session: session)
        return result["result"]?["value"] ?? .null
    }

    /// An execution context (an isolated world: the frame's DOM, not its scripts' variables) in the tab's
    /// first frame whose URL starts with `prefix`, for ``evaluate(_:session:context:)`` and
    /// ``waitFor(_:session:context:navigations:)`` inside an iframe of another origin (same site, so in
    /// the tab's process). The frame must have loaded its document.
    public func isolatedWorld(inFrameWithURLPrefix prefix: String, session: String) async throws -> Int {
        let tree = try await send("Page.getFrameTree", session: session)
        var pending = [tree["frameTree"] ?? .null]
        while let node = pending.popLast() {
            if let url = node["frame"]?["url"]?.stringValue, url.hasPrefix(prefix),
                let frameId = node["frame"]?["id"]?.stringValue
            {
                let world = try await send(
                    "Page.createIsolatedWorld",
                    JSONObject(["frameId": .string(frameId), "worldName": .string("signerkit-test")]), session: session)
                guard case .number(let text)? = world["executionContextId"], let id = Int(text) else {
                    throw Failure("no execution context for the frame: \(world.serialized)")
                }
                return id
            }
            pending += node["childFrames"]?.arrayValue ?? []
        }
        throw Failure("no frame loaded from \(prefix): \(tree.serialized)")
    }

    /// Opens `url` in a new tab and returns the tab's session id.
    public func openTab(_ url: String) async throws -> String {
        let target = try await send("Target.createTarget", JSONObject(["url": .string("about:blank")]))
        guard let targetId = target["targetId"]?.stringValue else { throw Failure("no targetId") }
        let attached = try await send(
            "Target.attachToTarget", JSONObject(["targetId": .string(targetId), "flatten": .bool(true)]))
        guard let session = attached["sessionId"]?.stringValue else { throw Failure("no sessionId") }
        _ = try await send("Page.navigate", JSONObject(["url": .string(url)]), session: session)
        return session
    }

    /// Waits until `expression` yields a non-empty string (or `true`) in the tab, without polling: the page
    /// watches its own document (a `MutationObserver`) and the evaluation's promise settles once the expression
    /// holds. A navigation replaces the document, which ends that evaluation with an error; the watch then
    /// starts again in the new one, at most `navigations` times. The page may depend on SignerKit's answer,
    /// which needs the cooperative pool: the hang bound (30 s) is a ``RealTime/Bound`` on the pool's progress,
    /// and the page gives its watch up every 5 s of its own time so that the bound is looked at.
    public func waitFor(_ expression: String, session: String, context: Int? = nil, navigations: Int = 20)
        async throws -> String
    {
        let watch = """
            new Promise((resolve) => {
              const look = () => { try { const v = (\(expression)); return v === true ? 'true' : v; } catch (e) { return ''; } };
              const holds = (v) => typeof v === 'string' && v !== '';
              const first = look();
              if (holds(first)) { resolve(first); return; }
              const observer = new MutationObserver(() => {
                const v = look();
                if (holds(v)) { observer.disconnect(); resolve(v); }
              });
              observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
              setTimeout(() => { observer.disconnect(); resolve(''); }, 5000);
            })
            """
        var parameters = JSONObject([
            "expression": .string(watch), "awaitPromise": .bool(true), "returnByValue": .bool(true),
        ])
        if let context { parameters["contextId"] = .number(String(context)) }
        let bound = RealTime.Bound(.seconds(30))
        var documents = 0
        while documents < navigations {
            let result: JSONValue
            do { result = try await send("Runtime.evaluate", parameters, session: session) } catch {
                documents += 1  // the document was replaced: watch the new one
                continue
            }
            if case .string(let text)? = result["result"]?["value"], !text.isEmpty { return text }
            guard result["result"]?["value"] == .string(""), !bound.hasPassed else {
                throw Failure("\(expression) did not hold: \(result.serialized)")
            }
        }
        throw Failure("\(expression) did not hold after \(navigations) documents")
    }

    /// The browser's own log (stdout and stderr), for failure messages.
    public var log: String {
        (try? String(contentsOfFile: "\(profile)/chromium.log", encoding: .utf8)).map { String($0.suffix(3000)) } ?? ""
    }

    /// Ends the browser (this process's child, by pid) and removes its profile.
    public func close() async {
        guard
            closed.withLock({ done in
                defer { done = true }; return !done
            })
        else { return }
        // Asks the browser to close; the reply is not awaited (the exit is, below).
        let id = nextID.withLock { value -> Int in
            value += 1
            return value
        }
        let bytes = Array(#"{"id":\#(id),"method":"Browser.close","params":{}}"#.utf8) + [0]
        _ = bytes.withUnsafeBytes { raw in raw.baseAddress.map { write(commands, $0, raw.count) } }
        let pid = self.pid
        await ChildProcess.onThread {
            var status: Int32 = 0
            // The child process is the subject: its exit is polled (no SIGCHLD hook here); the bound only ends
            // the hang of a browser that ignores Browser.close, which is then killed.
            if RealTime.pollBlocking(within: .seconds(30), until: { waitpid(pid, &status, WNOHANG) == pid }) { return }
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        Glibc.close(commands)
        Glibc.close(replies)
        try? FileManager.default.removeItem(atPath: profile)
    }

    private func readLoop() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(replies, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            buffer += chunk[0..<count]
            while let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                guard let value = try? JSONValue(parsing: message), case .number(let idText)? = value["id"],
                    let id = Int(idText)
                else {
                    continue
                }
                waiters.withLock { $0.removeValue(forKey: id) }?.resume(returning: value)
            }
        }
        let pending = waiters.withLock { waiters in
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for waiter in pending { waiter.resume(throwing: Failure("Chromium closed the DevTools pipe")) }
    }
}
