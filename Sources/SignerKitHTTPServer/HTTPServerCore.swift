import CMicroHTTPD
import Dispatch
import EthereumPrimitives
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The state libmicrohttpd's callbacks reach through their `cls` pointer (retained while the daemon runs).
final class HTTPServerCore: Sendable {
    let limits: HTTPServerLimits
    let handler: HTTPServer.Handler
    /// Decides on each request once its head has arrived.
    let headCheck: HTTPServer.HeadCheck
    /// The open connections: receive deadlines, room for newcomers.
    let watch: ConnectionWatch

    private struct State {
        /// The daemon's address (an `OpaquePointer` is not `Sendable`); 0 once stopped.
        var daemon: UInt = 0
        var idleWaiters: [DispatchSemaphore] = []
        var stopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    /// Requests whose line arrived and that have not completed (every connection's thread counts, so an
    /// atomic rather than the state's lock).
    private let inFlight = Atomic<Int>(0)
    /// The handlers running now, for ``stopBlocking()`` to cancel.
    private let tasks = RunningTasks()

    /// True when the daemon listens on a Unix-domain socket (requests then carry the peer's user id).
    let isUnixSocket: Bool

    init(
        limits: HTTPServerLimits, isUnixSocket: Bool = false, clock: any SignerClock,
        headCheck: @escaping HTTPServer.HeadCheck, handler: @escaping HTTPServer.Handler
    ) {
        self.limits = limits
        self.isUnixSocket = isUnixSocket
        self.handler = handler
        self.headCheck = headCheck
        watch = ConnectionWatch(limits: limits, clock: clock)
    }

    /// A listening thread, and a thread of its own for each connection (which runs its requests' handlers).
    private static var flags: UInt32 {
        UInt32(MHD_USE_AUTO_INTERNAL_THREAD.rawValue) | UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue)
    }

    /// The memory pool holds the request line and headers plus the answer's head.
    private var memoryLimit: Int { limits.maxHeaderBytes + 8 * 1024 }

    /// Starts the daemon on `listener`, a listening Unix-domain socket it then owns.
    func start(listeningOn listener: Int32) throws(HTTPServerError) {
        let cls = Unmanaged.passRetained(self).toOpaque()
        let daemon = sk_mhd_start_on_socket(
            Self.flags, listener, accessHandler, cls, requestCompleted, uriLogged, connectionNotified,
            ConnectionLedger.libmicrohttpdLimit(limits.maxConnections), limits.connectionTimeoutSeconds, memoryLimit)
        guard let daemon else {
            Unmanaged<HTTPServerCore>.fromOpaque(cls).release()
            throw HTTPServerError(description: "libmicrohttpd refused the socket")
        }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(daemon)))
        state.withLock { $0.daemon = address }
        watch.startSweeping()
    }

    /// The TLS identity, kept (key in secure memory) while the daemon runs.
    private let tlsIdentity = Mutex<HTTPServerTLS?>(nil)

    /// Starts the daemon (HTTPS with `tls`); returns the bound port.
    func start(host: String, port: UInt16, tls: HTTPServerTLS? = nil) throws(HTTPServerError) -> UInt16 {
        var flags = Self.flags
        var storage = sockaddr_storage()
        if host.contains(":") {
            flags |= UInt32(MHD_USE_IPv6.rawValue)
            let parsed = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    address.pointee.sin6_family = sa_family_t(AF_INET6)
                    address.pointee.sin6_port = port.bigEndian
                    return inet_pton(AF_INET6, host, &address.pointee.sin6_addr) == 1
                }
            }
            guard parsed else { throw HTTPServerError(description: "not an IP address: \(host.prefix(64))") }
        } else {
            let parsed = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    address.pointee.sin_family = sa_family_t(AF_INET)
                    address.pointee.sin_port = port.bigEndian
                    return inet_pton(AF_INET, host, &address.pointee.sin_addr) == 1
                }
            }
            guard parsed else { throw HTTPServerError(description: "not an IP address: \(host.prefix(64))") }
        }
        let cls = Unmanaged.passRetained(self).toOpaque()
        let memory = memoryLimit
        tlsIdentity.withLock { $0 = tls }
        let daemon = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                HTTPServerTLS.withPEM(tls) { key, certificate in
                    sk_mhd_start(
                        flags, address, accessHandler, cls, requestCompleted, uriLogged, connectionNotified,
                        ConnectionLedger.libmicrohttpdLimit(limits.maxConnections),
                        ConnectionLedger.libmicrohttpdLimit(limits.maxConnectionsPerAddress),
                        limits.connectionTimeoutSeconds, memory, 128, key, certificate)
                }
            }
        }
        guard let daemon else {
            Unmanaged<HTTPServerCore>.fromOpaque(cls).release()
            tlsIdentity.withLock { $0 = nil }
            let what = tls == nil ? "" : " (or the TLS certificate and key are not a matching PEM pair)"
            throw HTTPServerError(description: "cannot listen on \(host.prefix(64)):\(port)\(what)")
        }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(daemon)))
        state.withLock { $0.daemon = address }
        watch.startSweeping()
        return sk_mhd_bound_port(daemon)
    }

    /// Quiesces, waits for requests in flight (bounded by the grace, then cancels handlers), stops the
    /// daemon and releases the core. Runs on a plain thread.
    func stopBlocking() {
        guard let daemon = OpaquePointer(bitPattern: state.withLock({ $0.daemon })) else { return }
        let listener = MHD_quiesce_daemon(daemon)
        if !waitIdle(for: limits.shutdownGrace) {
            tasks.cancelAll()
            // Cancelled handlers return; the connection timeout bounds a client that stopped reading.
            if !waitIdle(for: .seconds(Int64(limits.connectionTimeoutSeconds) + 5)) {
                // A handler that ignores cancellation: its connection's thread stops waiting for it and
                // answers 503, so the daemon's threads can end (the task itself is left to finish).
                tasks.abandonAll()
                _ = waitIdle(for: .seconds(Int64(limits.connectionTimeoutSeconds) + 5))
            }
        }
        MHD_stop_daemon(daemon)
        watch.stopSweeping()
        if listener >= 0 { close(listener) }
        tlsIdentity.withLock { identity in
            identity?.key.wipe()
            identity = nil
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.daemon = 0
            state.stopped = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
        Unmanaged.passUnretained(self).release()
    }

    /// Returns once ``stopBlocking()`` has finished.
    func waitStopped() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.stopped { return true }
                state.stopWaiters.append(waiter)
                return false
            }
            if done { waiter.resume() }
        }
    }

    private func waitIdle(for duration: Duration) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        // The waiter is listed before the count is read, and `requestEnded` reads the list after the count
        // reached 0, so one of the two sees the other.
        let idle = state.withLock { state -> Bool in
            state.idleWaiters.append(semaphore)
            guard inFlight.load(ordering: .sequentiallyConsistent) == 0 else { return false }
            state.idleWaiters.removeLast()
            return true
        }
        if idle { return true }
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return semaphore.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, 3.6e12)))) == .success
    }

    /// Whether a stop is waiting for the requests in flight to finish (for tests that observe the drain).
    var isDraining: Bool { state.withLock { !$0.idleWaiters.isEmpty } }

    func requestStarted() { inFlight.add(1, ordering: .sequentiallyConsistent) }

    func requestEnded() {
        guard inFlight.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 else { return }
        let waiters = state.withLock { state -> [DispatchSemaphore] in
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.signal() }
    }

    /// The handler's answer to `request`, on the connection's own thread: the handler's jobs run right here
    /// (``HandlerExecutor``), and between them this thread waits for the next one or for the answer (only
    /// this connection waits). The task is kept so ``stopBlocking()`` can cancel it.
    func respond(to request: HTTPServerRequest, context: HTTPRequestContext) -> HTTPServerResponse {
        let handler = self.handler
        let key = ObjectIdentifier(context)
        let executor = HandlerExecutor()
        tasks.insert(key, executor: executor) {
            Task(executorPreference: executor) { [tasks] in
                let response = await handler(request)
                context.finish(response)
                tasks.remove(key)
                executor.finish()
            }
        }
        executor.runUntilFinished()
        return context.response ?? .text(503, "the server is stopping")
    }
}

/// One request's progress, owned by libmicrohttpd's `con_cls` between the URI log and completion.
final class HTTPRequestContext: Sendable {
    let target: String
    private struct State {
        var headSeen = false
        var head: HTTPServerRequest?
        var body: [UInt8] = []
        var tooLarge = false
        var dispatched = false
        var response: HTTPServerResponse?
    }
    private let state = Mutex(State())

    init(target: String) { self.target = target }

    /// Appends body bytes; false once the limit is passed.
    func append(_ bytes: UnsafeRawBufferPointer, limit: Int) -> Bool {
        state.withLock { state in
            guard !state.tooLarge else { return false }
            if state.body.count + bytes.count > limit {
                state.tooLarge = true
                state.body = []
                return false
            }
            state.body.append(contentsOf: bytes)
            return true
        }
    }

    /// True on the first call only (the head has arrived, no body yet).
    func headArrived() -> Bool {
        state.withLock { state in
            defer { state.headSeen = true }
            return !state.headSeen
        }
    }

    /// Keeps the request's head (method, target, fields, peer; no body) for the dispatch.
    func keep(_ head: HTTPServerRequest) { state.withLock { $0.head = head } }

    /// The head ``keep(_:)`` kept.
    var head: HTTPServerRequest? { state.withLock { $0.head } }

    var tooLarge: Bool { state.withLock { $0.tooLarge } }

    /// The body, and whether this is the first complete call (the handler is not yet running).
    func takeForDispatch() -> (body: [UInt8], first: Bool) {
        state.withLock { state in
            defer { state.dispatched = true }
            return (state.body, !state.dispatched)
        }
    }

    func finish(_ response: HTTPServerResponse) { state.withLock { $0.response = response } }

    var response: HTTPServerResponse? { state.withLock { $0.response } }
}

/// The handler tasks running now, in shards so that connection threads seldom wait for each other.
final class RunningTasks: Sendable {
    private final class Shard: Sendable {
        /// Each task, and the executor its connection's thread runs.
        let tasks = Mutex<[ObjectIdentifier: (task: Task<Void, Never>, executor: HandlerExecutor)]>([:])
    }
    private let shards = (0..<16).map { _ in Shard() }

    private func shard(_ key: ObjectIdentifier) -> Shard { shards[key.hashValue & 15] }

    /// Lists the task `start` returns (started under the shard's lock, so it cannot end before it is
    /// listed).
    func insert(_ key: ObjectIdentifier, executor: HandlerExecutor, _ start: () -> Task<Void, Never>) {
        shard(key).tasks.withLock { $0[key] = (start(), executor) }
    }

    /// Unlists a task that ended.
    func remove(_ key: ObjectIdentifier) { _ = shard(key).tasks.withLock { $0.removeValue(forKey: key) } }

    /// Cancels every listed task.
    func cancelAll() {
        for shard in shards {
            for entry in shard.tasks.withLock({ Array($0.values) }) { entry.task.cancel() }
        }
    }

    /// Wakes the connection threads still waiting for a listed task (they answer 503 without it).
    func abandonAll() {
        for shard in shards {
            for entry in shard.tasks.withLock({ Array($0.values) }) { entry.executor.abandon() }
        }
    }
}
