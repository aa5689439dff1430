import Dispatch
import EthereumPrimitives
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One server's watch over its connections: a ``ConnectionLedger`` under a lock, fed by libmicrohttpd's
/// callbacks, and one sweeping thread that every ``sweepInterval`` (real time, a plain thread) reads the
/// server's clock and shuts down the sockets of connections past the request receive deadline.
///
/// Closing a connection from outside its thread is `shutdown(fd, SHUT_RDWR)`: the connection's thread, which
/// waits on the socket, reads end-of-file and libmicrohttpd closes the connection without an answer (and frees
/// its slot and thread). A socket is shut down only under the ledger's lock, and libmicrohttpd reports a
/// connection closed (which unlists it under the same lock) before it closes the socket, so a descriptor number
/// is never touched once it could belong to something else.
final class ConnectionWatch: Sendable {
    private let ledger: Mutex<ConnectionLedger>
    private let clock: any SignerClock
    /// How often the sweeping thread looks: an eighth of the receive timeout, between 10 ms and 250 ms.
    let sweepInterval: Duration
    private let stopRequest = DispatchSemaphore(value: 0)
    private let sweeperEnded = DispatchSemaphore(value: 0)
    private let sweeping = Atomic<Bool>(false)

    /// A watch applying `limits`, reading `clock`.
    init(limits: HTTPServerLimits, clock: any SignerClock) {
        ledger = Mutex(
            ConnectionLedger(
                receiveTimeout: limits.requestReceiveTimeout, maxConnections: Int(limits.maxConnections),
                maxConnectionsPerAddress: Int(limits.maxConnectionsPerAddress)))
        self.clock = clock
        sweepInterval = min(max(limits.requestReceiveTimeout / 8, .milliseconds(10)), .milliseconds(250))
    }

    /// Starts the sweeping thread.
    func startSweeping() {
        guard !sweeping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (seconds, attoseconds) = sweepInterval.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        let thread = Thread { [self] in
            while stopRequest.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut { sweep() }
            sweeperEnded.signal()
        }
        thread.name = "signerkit-http-sweep"
        thread.start()
    }

    /// Stops the sweeping thread and waits for it to end.
    func stopSweeping() {
        guard sweeping.exchange(false, ordering: .acquiringAndReleasing) else { return }
        stopRequest.signal()
        sweeperEnded.wait()
    }

    /// Shuts down every connection past its receive deadline now.
    func sweep() {
        let now = clock.now
        ledger.withLock { ledger in
            for descriptor in ledger.overdue(at: now) { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Lists a new connection (making room for it when the server is nearly full); its tag, never 0.
    func opened(descriptor: Int32, address: [UInt8]?) -> UInt {
        let now = clock.now
        return ledger.withLock { ledger in
            let (tag, victim) = ledger.open(descriptor: descriptor, address: address, at: now)
            if let victim { _ = shutdown(victim, Int32(SHUT_RDWR)) }
            return tag
        }
    }

    /// See ``ConnectionLedger/lineArrived(_:)``.
    func lineArrived(_ tag: UInt) { ledger.withLock { $0.lineArrived(tag) } }

    /// See ``ConnectionLedger/headArrived(_:credentialed:)``.
    func headArrived(_ tag: UInt, credentialed: Bool) {
        ledger.withLock { $0.headArrived(tag, credentialed: credentialed) }
    }

    /// See ``ConnectionLedger/requestReceived(_:)``.
    func requestReceived(_ tag: UInt) { ledger.withLock { $0.requestReceived(tag) } }

    /// See ``ConnectionLedger/requestEnded(_:at:)``.
    func requestEnded(_ tag: UInt) {
        let now = clock.now
        ledger.withLock { $0.requestEnded(tag, at: now) }
    }

    /// See ``ConnectionLedger/close(_:)``.
    func closed(_ tag: UInt) { ledger.withLock { $0.close(tag) } }
}
