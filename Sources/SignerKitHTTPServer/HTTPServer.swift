import CMicroHTTPD
import EthereumPrimitives
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one HTTP/1.1 server layer, on libmicrohttpd: loopback callback listeners and local test services.
///
/// Threading: libmicrohttpd's listening thread accepts, and every connection gets a thread of its own
/// (`MHD_USE_THREAD_PER_CONNECTION`, at most ``HTTPServerLimits/maxConnections``). A complete request's
/// async handler starts as a `Task` on a ``HandlerExecutor`` of the connection's thread, which runs it and,
/// when it waits on something else (an `fsync`, an upstream call), waits for it and runs its continuation
/// too (only that connection waits). Jobs the thread cannot take run on dispatch threads outside the
/// cooperative pool, so answers never depend on the pool being free. A request answered without waiting (a
/// signature with a software key) costs no hand-over between threads, one that waits costs one wake-up, and
/// the kernel spreads the connections' threads over the cores.
///
/// Connections are keep-alive (HTTP/1.1 rules); sockets are close-on-exec (libmicrohttpd opens them with
/// `SOCK_CLOEXEC`) and never raise `SIGPIPE`. Limits are one ``HTTPServerLimits``.
///
/// Slow and hostile clients: a whole request must arrive within ``HTTPServerLimits/requestReceiveTimeout``
/// (read on the server's clock by a sweeping thread), a connection that never showed credentials (see
/// ``HeadCheck``) is closed to make room for a newcomer when the server is nearly full, and a head with
/// ambiguous framing (RFC 9112 §6) or a field cut short by a NUL byte is refused before its body is read.
package final class HTTPServer: Sendable {
    /// Handles one request.
    package typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

    /// The bound port.
    package let port: UInt16
    /// The bound address, e.g. `127.0.0.1`.
    package let host: String
    private let core: HTTPServerCore
    private let stopped = Atomic<Bool>(false)

    /// Whether it serves HTTPS.
    package let usesTLS: Bool

    /// Binds `host`:`port` (an IPv4 or IPv6 literal; port 0 picks a free port) and starts serving, HTTPS
    /// with `tls`. Receive deadlines are read on `clock`; `headCheck` decides on each request once its head
    /// has arrived (by default every request is read and dispatched, none credentialed).
    package init(
        host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServerLimits = HTTPServerLimits(),
        tls: HTTPServerTLS? = nil, clock: any SignerClock = SystemClock(),
        headCheck: @escaping HeadCheck = { _ in .anonymous }, handler: @escaping Handler
    ) throws(HTTPServerError) {
        let core = HTTPServerCore(limits: limits, clock: clock, headCheck: headCheck, handler: handler)
        self.port = try core.start(host: host, port: port, tls: tls)
        self.host = host
        self.core = core
        usesTLS = tls != nil
    }

    /// Binds a Unix-domain socket at `path` (mode 0600; the path must not exist; its directory's
    /// permissions are the caller's to check) and starts serving on it. Each request carries its peer's
    /// user id (``HTTPServerRequest/peerUserID``). ``port`` is 0 and ``host`` the path. The socket file stays
    /// after ``stop()``: the caller removes it.
    package init(
        unixSocketPath path: String, limits: HTTPServerLimits = HTTPServerLimits(),
        clock: any SignerClock = SystemClock(),
        headCheck: @escaping HeadCheck = { _ in .anonymous }, handler: @escaping Handler
    ) throws(HTTPServerError) {
        let core = HTTPServerCore(
            limits: limits, isUnixSocket: true, clock: clock, headCheck: headCheck, handler: handler)
        let listener = try UnixSocket.bindAndListen(path: path, backlog: 16)
        do {
            try core.start(listeningOn: listener)
        } catch {
            close(listener)
            unlink(path)
            throw error
        }
        self.port = 0
        self.host = path
        self.core = core
        usesTLS = false
    }

    deinit { stopWithoutWaiting() }

    /// Starts ``stop()`` on a dedicated thread and returns at once (for synchronous callers and `deinit`).
    /// Idempotent.
    package func stopWithoutWaiting() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let core = self.core
        let thread = Thread { core.stopBlocking() }
        thread.name = "signerkit-http-stop"
        thread.start()
    }

    /// Whether ``stop()`` is waiting for the requests in flight to finish: what a test of the drain waits for.
    package var isDraining: Bool { core.isDraining }

    /// `http://host:port` or `https://host:port` (IPv6 hosts bracketed).
    package var baseURLString: String {
        let scheme = usesTLS ? "https" : "http"
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }

    /// Stops accepting at once, lets requests in flight finish (up to the limits' shutdown grace, then
    /// cancels their handlers and waits for them), closes every connection and the daemon. Idempotent.
    package func stop() async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else {
            await core.waitStopped()
            return
        }
        let core = self.core
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // libmicrohttpd's stop joins its thread: a dedicated thread waits, never the cooperative pool.
            let thread = Thread {
                core.stopBlocking()
                done.resume()
            }
            thread.name = "signerkit-http-stop"
            thread.start()
        }
    }
}
