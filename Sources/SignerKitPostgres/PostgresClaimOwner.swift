import SignerKitSupport
import Synchronization

/// Whose idempotency claims these are, and whether that owner still lives.
///
/// Every ``PostgresIdempotencyStore`` keeps one session of its own that holds a session-level advisory lock
/// (`pg_try_advisory_lock(lockClass, id)`) on its *owner id*, and writes that id into the claims it makes.
/// PostgreSQL drops the lock with the session — when the process dies and its socket closes, or when the
/// server gives up on a peer that stopped answering — so a claim whose owner's lock nobody holds belongs to a
/// run that can no longer finish it.
///
/// A session found lost is replaced by a new one with a *new* id: claims made under the old id then look
/// abandoned to every instance, this one included. That is safe because the journal lets at most one run
/// journal a transaction for an action (``SignerKit/JournalError/actionInFlight(hash:)``), and completing or
/// releasing a claim another instance took over changes nothing.
final class PostgresClaimOwner: Sendable {
    /// The first key of every owner lock (`SKOW` in ASCII), so they never meet other advisory locks.
    static let lockClass: Int32 = 0x534b_4f57

    /// ``lockClass`` as a statement parameter.
    static let lockClassParameter = PostgresValue.text(String(lockClass))

    private let connection: PostgresConnection
    /// Every id this handle held, the current one last.
    private let held = Mutex<[Int32]>([])

    /// An owner whose session opens on first use.
    init(configuration: PostgresConfiguration) {
        connection = PostgresConnection(configuration: configuration, label: "SignerKit.PostgresClaimOwner")
    }

    /// The current owner id, taking one first when there is none.
    func current() async throws(PostgresError) -> Int32 {
        if let id = held.withLock({ $0.last }) { return id }
        return try await renew(replacing: nil)
    }

    /// Every id this handle ever held (claims under any of them are its own to complete or release).
    var ids: [Int32] { held.withLock { $0 } }

    /// A new session with a new id, replacing `lost` when that is still the current id (else the current
    /// one: another caller replaced it already).
    ///
    /// - Throws: ``PostgresError`` when the server cannot be reached, or no free id was found.
    func renew(replacing lost: Int32?) async throws(PostgresError) -> Int32 {
        try await connection.queue.perform { () throws(PostgresError) -> Int32 in
            if let current = self.held.withLock({ $0.last }), current != lost { return current }
            self.connection.close()
            for _ in 0..<Self.attempts {
                let id = Int32.random(in: 1...Int32.max)
                let locked = try self.connection.query(
                    "SELECT pg_try_advisory_lock($1::integer, $2::integer)",
                    [.text(String(Self.lockClass)), .text(String(id))])
                if locked.first?.bool(0) == true {
                    self.held.withLock { $0.append(id) }
                    return id
                }
            }
            throw PostgresError(
                endpoint: self.connection.endpoint, message: "no free claim owner id in \(Self.attempts) tries")
        }
    }

    /// SQL that is true when the owner id the `integer` expression `owner` gives has a live session;
    /// `parameter` (such as `$3`) is the statement parameter that holds ``lockClass``.
    static func lives(_ owner: String, lockClassParameter parameter: String) -> String {
        """
        EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
        AND l.classid = \(parameter)::integer::oid AND l.objid = (\(owner))::oid)
        """
    }

    /// How many random ids a renewal tries before giving up (one taken id in 2³¹ is already rare).
    private static let attempts = 8
}
