import EthereumPrimitives

/// The pending requests of one signer, by state: issues single-use states, expires them, and
/// tells a genuine callback from an unknown, replayed or late one.
///
/// A state is 128 random bits from the system generator written in UUID v4 form (the version and
/// variant nibbles set, as the SDKs do). ``claim(_:)`` succeeds once per state; afterwards the same
/// state is ``WaypointError/replayedState`` (remembered for a while, then simply unknown). A state
/// not claimed before its deadline is ``WaypointError/expiredState``. Deadlines are read on the store's
/// ``clock``, so a test moves a manual clock past them instead of sleeping.
public actor WaypointStateStore {
    /// One pending request.
    public struct Pending: Sendable, Hashable {
        /// Its state.
        public let state: String
        /// The callback method that answers it.
        public let method: WaypointMethod
        /// When it stops being accepted.
        public let deadline: ContinuousClock.Instant
    }

    private enum Finished {
        case used
        case expired
    }

    /// How long a request stays claimable.
    public let timeout: Duration
    /// Where deadlines are read, and where ``WaypointSession`` waits for them.
    public nonisolated let clock: any SignerClock
    private var pending: [String: Pending] = [:]
    private var finished: [String: (reason: Finished, at: ContinuousClock.Instant)] = [:]

    /// A store whose requests expire `timeout` after they are issued, as `clock` tells (default: the
    /// system clock).
    public init(timeout: Duration = .seconds(300), clock: any SignerClock = SystemClock()) {
        self.timeout = timeout
        self.clock = clock
    }

    /// A fresh random state in UUID v4 form, lower case: 128 bits from the system generator with
    /// the version (4) and variant (10xx) bits set.
    public static func randomState() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(
            separator: "-")
    }

    /// Whether `text` has the UUID v4 shape ``randomState()`` produces.
    public static func isStateShaped(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D }) else {
            return false
        }
        return parts[2].first == "4" && "89ab".contains(parts[3].first ?? "x")
    }

    /// Issues a new state for a request answered by `method`, pending until the timeout.
    public func issue(for method: WaypointMethod) -> Pending {
        prune()
        var state = Self.randomState()
        while pending[state] != nil || finished[state] != nil { state = Self.randomState() }
        let entry = Pending(state: state, method: method, deadline: clock.now.advanced(by: timeout))
        pending[state] = entry
        return entry
    }

    /// Takes the pending request for `state`, once.
    ///
    /// - Throws: ``WaypointError/replayedState`` for a state already claimed,
    ///   ``WaypointError/expiredState`` for one past its deadline or abandoned, and
    ///   ``WaypointError/unknownState`` for any other.
    public func claim(_ state: String) throws(WaypointError) -> Pending {
        let now = clock.now
        if let entry = pending.removeValue(forKey: state) {
            guard now < entry.deadline else {
                finished[state] = (.expired, now)
                throw .expiredState
            }
            finished[state] = (.used, now)
            return entry
        }
        switch finished[state]?.reason {
        case .used?: throw .replayedState
        case .expired?: throw .expiredState
        case nil: throw .unknownState
        }
    }

    /// Ends a pending request that will not be answered (timed out, cancelled); a later callback for
    /// it is ``WaypointError/expiredState``.
    public func abandon(_ state: String) {
        guard pending.removeValue(forKey: state) != nil else { return }
        finished[state] = (.expired, clock.now)
    }

    /// Whether `state` is pending and not past its deadline.
    public func isPending(_ state: String) -> Bool {
        guard let entry = pending[state] else { return false }
        return clock.now < entry.deadline
    }

    /// The number of pending requests (expired ones included until they are pruned).
    public var pendingCount: Int { pending.count }

    /// Moves expired requests to the finished list and forgets finished states older than ten
    /// timeouts (a replay after that is simply an unknown state).
    private func prune() {
        let now = clock.now
        for (state, entry) in pending where entry.deadline <= now {
            pending[state] = nil
            finished[state] = (.expired, entry.deadline)
        }
        let horizon = timeout * 10
        finished = finished.filter { now - $0.value.at < horizon }
    }
}
