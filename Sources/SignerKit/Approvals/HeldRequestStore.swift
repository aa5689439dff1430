import Synchronization

/// Where held requests live while they wait for approvals: SQLite for one signer service (they survive
/// restarts), PostgreSQL for several instances (any of them may take an approval or sign), memory for one
/// process. Every change is read, decided (``HeldRequest/deciding(_:by:at:)`` and its siblings) and written in
/// one store transaction, so two approvals racing on two instances are both counted and a request is claimed
/// for signing by one instance at a time.
public protocol HeldRequestStore: Sendable {
    /// Stores `request` unless a request with its id exists; returns the stored one (a retry of a held call
    /// finds its first request).
    func insert(_ request: HeldRequest) async throws(ApprovalError) -> HeldRequest

    /// The request with `id`, if any.
    func request(id: String) async throws(ApprovalError) -> HeldRequest?

    /// Reads the request with `id`, lets `decide` choose what to write, writes it, all in one transaction; then
    /// throws the update's refusal, if any, or returns the request as stored.
    ///
    /// - Throws: ``ApprovalError/unknownRequest(_:)`` when there is none; the update's refusal.
    func update(id: String, _ decide: @escaping @Sendable (HeldRequest) -> HeldRequestUpdate)
        async throws(ApprovalError) -> HeldRequest

    /// The requests in `statuses`, oldest first, at most `limit`.
    func requests(in statuses: Set<HeldRequest.Status>, limit: Int) async throws(ApprovalError) -> [HeldRequest]
}

/// A ``HeldRequestStore`` in this process's memory (its requests end with it).
public final class MemoryHeldRequestStore: HeldRequestStore {
    private let rows = Mutex<[String: HeldRequest]>([:])

    /// An empty store.
    public init() {}

    /// Stores `request` unless its id is taken.
    public func insert(_ request: HeldRequest) async throws(ApprovalError) -> HeldRequest {
        rows.withLock { rows in
            if let existing = rows[request.id] { return existing }
            rows[request.id] = request
            return request
        }
    }

    /// The request with `id`.
    public func request(id: String) async throws(ApprovalError) -> HeldRequest? { rows.withLock { $0[id] } }

    /// Reads, decides and writes under the lock.
    public func update(id: String, _ decide: @escaping @Sendable (HeldRequest) -> HeldRequestUpdate)
        async throws(ApprovalError) -> HeldRequest
    {
        let (stored, refusal) = rows.withLock { rows -> (HeldRequest?, ApprovalError?) in
            guard let current = rows[id] else { return (nil, .unknownRequest(id)) }
            let update = decide(current)
            if let next = update.next { rows[id] = next }
            return (rows[id], update.refusal)
        }
        if let refusal { throw refusal }
        guard let stored else { throw .unknownRequest(id) }
        return stored
    }

    /// The requests in `statuses`, oldest first.
    public func requests(in statuses: Set<HeldRequest.Status>, limit: Int) async throws(ApprovalError)
        -> [HeldRequest]
    {
        rows.withLock { rows in
            Array(
                rows.values.filter { statuses.contains($0.status) }
                    .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.prefix(max(0, limit)))
        }
    }
}
