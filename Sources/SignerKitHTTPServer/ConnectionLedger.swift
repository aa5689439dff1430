/// Every open connection of one server and what its current request has shown, so that no client can hold a
/// connection slot for long without credentials: it names the connections past the request receive deadline,
/// and the one to close when a newcomer needs room. Logic only, on instants it is given (``ConnectionWatch``
/// holds it under a lock, reads the clock and closes the sockets).
///
/// - A request must arrive whole (request line, header fields, body) within ``receiveTimeout`` of the moment
///   the connection began to wait for it: the connection's start, or the end of the previous answer on a
///   keep-alive connection. A request being handled has no deadline (the handler bounds its own time).
/// - Making room: when more than ``softPerAddress`` connections are open from the newcomer's address, its
///   arrival closes the connection from that address that has waited longest for its current request among
///   those that never showed credentials and have either sent a request line or been silent for
///   ``silentGrace``; when none is, or when more than ``softTotal`` are open in all, the same among all. A
///   newcomer is never the one closed (its request is normally read, credentials and all, long before the
///   grace ends); a credentialed connection never is either.
/// - The limits themselves: a newcomer that finds ``maxTotal`` connections open (``maxPerAddress`` from its
///   address) and nothing to close is closed itself. libmicrohttpd's own limits stand a little higher
///   (``libmicrohttpdLimit(_:)``): were they the limits, a server filled by connections that could not yet be
///   closed would refuse every later newcomer unseen, and so never make room again.
struct ConnectionLedger: Sendable {
    /// One open connection.
    struct Entry: Sendable, Equatable {
        /// Its socket (valid until the close notification removes the entry).
        let descriptor: Int32
        /// The peer's IP address (4 or 16 bytes); `nil` on a Unix-domain socket.
        let address: [UInt8]?
        /// When it began to wait for its current request; `nil` while a request is being handled.
        var waitingSince: ContinuousClock.Instant?
        /// Whether the current request's line has arrived.
        var lineSeen = false
        /// Whether a request on it showed credentials (the server's head check said so).
        var credentialed = false
        /// Whether it has been shut down already (it stays listed until libmicrohttpd reports it closed).
        var cut = false
    }

    /// How long a whole request may take to arrive.
    let receiveTimeout: Duration
    /// Connections open at once (live, not yet shut down).
    let maxTotal: Int
    /// Connections open at once from one address.
    let maxPerAddress: Int
    /// Connections open at once beyond which a newcomer makes room; `nil`: never.
    let softTotal: Int?
    /// Connections open at once from one address beyond which a newcomer from it makes room; `nil`: never.
    let softPerAddress: Int?
    /// How long a connection that has sent nothing of its current request is spared when room is made.
    static let silentGrace: Duration = .seconds(1)

    private(set) var entries: [UInt: Entry] = [:]
    private var nextTag: UInt = 1

    /// A ledger for a server with at most `maxConnections` connections open at once and
    /// `maxConnectionsPerAddress` from one address: the soft limits keep an eighth of each free for newcomers
    /// (none below eight connections, where a newcomer beyond the limit is simply refused).
    init(receiveTimeout: Duration, maxConnections: Int, maxConnectionsPerAddress: Int) {
        self.receiveTimeout = receiveTimeout
        maxTotal = maxConnections
        maxPerAddress = min(maxConnections, maxConnectionsPerAddress)
        softTotal = Self.softLimit(maxTotal)
        softPerAddress = Self.softLimit(maxPerAddress)
    }

    static func softLimit(_ hard: Int) -> Int? { hard >= 8 ? hard - hard / 8 : nil }

    /// The limit libmicrohttpd applies for a ledger limit of `limit`: room for the connections shut down and
    /// not yet closed, and for newcomers about to be refused here (an eighth more, at least 4).
    static func libmicrohttpdLimit(_ limit: UInt32) -> UInt32 {
        let (sum, overflow) = limit.addingReportingOverflow(max(4, limit / 8))
        return overflow ? .max : sum
    }

    /// Lists a connection that opened at `now`; returns its tag (never 0) and the socket to shut down to make
    /// room for it, or its own when it is over a limit with nothing to close, if any (marked cut).
    mutating func open(descriptor: Int32, address: [UInt8]?, at now: ContinuousClock.Instant) -> (
        tag: UInt, victim: Int32?
    ) {
        let tag = nextTag
        nextTag += 1
        entries[tag] = Entry(descriptor: descriptor, address: address, waitingSince: now)
        var victim: UInt?
        if let address, let softPerAddress, live(from: address) > softPerAddress {
            victim = evictable(from: address, sparing: tag, at: now)
        }
        if victim == nil, let softTotal, live(from: nil) > softTotal {
            victim = evictable(from: nil, sparing: tag, at: now)
        }
        if victim == nil, live(from: nil) > maxTotal || (address.map { live(from: $0) > maxPerAddress } ?? false) {
            victim = tag
        }
        guard let victim else { return (tag, nil) }
        entries[victim]?.cut = true
        return (tag, entries[victim]?.descriptor)
    }

    /// Open connections not yet shut down, from `address` (`nil`: from anywhere).
    private func live(from address: [UInt8]?) -> Int {
        entries.values.lazy.filter { !$0.cut && (address == nil || $0.address == address) }.count
    }

    /// The tag of the connection to close for room: from `address` (`nil`: any), not `spared`, without
    /// credentials, waiting for a request it has begun or has been silent on for ``silentGrace``, waiting
    /// longest.
    private func evictable(from address: [UInt8]?, sparing spared: UInt, at now: ContinuousClock.Instant) -> UInt? {
        var best: (tag: UInt, since: ContinuousClock.Instant)?
        for (tag, entry) in entries where tag != spared && !entry.cut && !entry.credentialed {
            guard let since = entry.waitingSince, address == nil || entry.address == address else { continue }
            guard entry.lineSeen || now - since >= Self.silentGrace else { continue }
            if let current = best, current.since <= since { continue }
            best = (tag, since)
        }
        return best?.tag
    }

    /// The current request's line arrived.
    mutating func lineArrived(_ tag: UInt) { entries[tag]?.lineSeen = true }

    /// The current request's head arrived; `credentialed`: it showed credentials, so the connection is never
    /// closed for room.
    mutating func headArrived(_ tag: UInt, credentialed: Bool) {
        if credentialed { entries[tag]?.credentialed = true }
    }

    /// The current request has arrived whole (or is answered from its head): it is being handled.
    mutating func requestReceived(_ tag: UInt) { entries[tag]?.waitingSince = nil }

    /// The current request is over at `now`: the connection waits for the next one.
    mutating func requestEnded(_ tag: UInt, at now: ContinuousClock.Instant) {
        guard entries[tag] != nil else { return }
        entries[tag]?.waitingSince = now
        entries[tag]?.lineSeen = false
    }

    /// libmicrohttpd closed the connection (its socket is about to be closed).
    mutating func close(_ tag: UInt) { entries[tag] = nil }

    /// The sockets of connections whose current request has not arrived whole within ``receiveTimeout``
    /// (marked cut, so each is named once).
    mutating func overdue(at now: ContinuousClock.Instant) -> [Int32] {
        var due: [Int32] = []
        for (tag, entry) in entries where !entry.cut {
            guard let since = entry.waitingSince, now - since >= receiveTimeout else { continue }
            entries[tag]?.cut = true
            due.append(entry.descriptor)
        }
        return due
    }
}
