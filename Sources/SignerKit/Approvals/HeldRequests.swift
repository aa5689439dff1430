import EthereumPrimitives
import Foundation
import Synchronization

/// Calls held for approval, from the hold to the one signature: holds a prepared batch that
/// ``ApprovalPolicy`` rules hold, takes approvals and rejections (``Approver``, bound to the request's
/// digest), answers long-polls, expires what waited too long and signs an approved request exactly once —
/// through the same dispatcher, journal and usage policies as any call, under the request's own journal key, so
/// a second attempt (a retry, another instance, a restart) re-sends what the first journalled and never signs
/// anew.
///
/// ```swift
/// let held = HeldRequests(store: MemoryHeldRequestStore())
/// let prepared = try await dispatcher.prepare(actions: actions)
/// if !prepared.approvalRequirements.isEmpty {
///     let request = try await held.hold(prepared, initiator: "payouts", method: "signerkit_signActions")
///     _ = try await held.decide(.approve(digest: request.digest), on: request.id, by: alice)
///     _ = try await held.decide(.approve(digest: request.digest), on: request.id, by: bob)  // 2 of treasury
///     let signed = try await held.sign(request.id, with: dispatcher)  // .signed, result in `result`
/// }
/// ```
///
/// Time is an input: expiries and leases read `now` (wall time, Unix seconds), waits sleep on `clock`.
public final class HeldRequests: Sendable {
    /// Where the requests are kept.
    public let store: any HeldRequestStore
    /// What long-polls sleep on.
    public let clock: any SignerClock
    /// The wall clock expiries and leases are read from.
    public let now: @Sendable () -> Date
    /// How often a long-poll reads the store again for changes other instances made (changes made in this
    /// process wake it at once).
    public let pollInterval: Duration
    /// How long one instance's claim to sign a request lasts before another may take it over.
    public let signingLease: Duration
    private let finished: (@Sendable (HeldRequest) async -> Void)?
    let changes = ChangeSignal()

    /// Requests in `store`; `finished` is told of every request this process made final (signed, rejected,
    /// expired, failed) — the signer service's webhook.
    public init(
        store: any HeldRequestStore, clock: any SignerClock = SystemClock(),
        now: @escaping @Sendable () -> Date = { Date() }, pollInterval: Duration = .seconds(1),
        signingLease: Duration = .seconds(120), finished: (@Sendable (HeldRequest) async -> Void)? = nil
    ) {
        self.store = store
        self.clock = clock
        self.now = now
        self.pollInterval = max(.milliseconds(10), pollInterval)
        self.signingLease = max(.seconds(1), signingLease)
        self.finished = finished
    }

    /// The wall clock in whole Unix seconds.
    var unixNow: Int64 { Int64(max(0, now().timeIntervalSince1970.rounded(.down))) }

    /// Holds `prepared` (whose ``PreparedActions/approvalRequirements`` are not empty) for `initiator`, who
    /// called `method`; `id` names it (a retry of the same call passes the same id and finds the first request).
    /// Its transactions are journalled under `journalKey` when signed — the call's own, when it has one, so that
    /// a retry of the call that is not held again (the rule changed, the window turned) re-sends them rather
    /// than signing anew; else `held:` and the id.
    ///
    /// - Throws: ``ApprovalError/digestMismatch(id:)`` when `id` names a request of other actions.
    public func hold(
        _ prepared: PreparedActions, initiator: String, method: String, id: String? = nil, journalKey: String? = nil
    ) async throws(ApprovalError) -> HeldRequest {
        let id = id ?? HeldRequest.newID()
        let request = HeldRequest(
            id: id, initiator: initiator, method: method, actions: prepared.actions, previews: prepared.previewsJSON,
            digest: prepared.approvalDigest, requirements: prepared.approvalRequirements,
            journalKey: journalKey ?? "held:" + id, createdAt: unixNow)
        let stored = try await store.insert(request)
        guard stored.digest == request.digest, stored.initiator == initiator else { throw .digestMismatch(id: id) }
        if stored == request { changes.changed() }
        return stored
    }

    /// The request with `id` (`nil`: none), expired first when its time ran out.
    public func request(id: String) async throws(ApprovalError) -> HeldRequest? {
        guard let found = try await store.request(id: id) else { return nil }
        let now = unixNow
        guard found.expiring(at: now).next != nil else { return found }
        return try await apply(id) { $0.expiring(at: now) }
    }

    /// `approver`'s decision on request `id` (see ``HeldRequest/deciding(_:by:at:)``).
    public func decide(_ decision: HeldRequest.Decision, on id: String, by approver: Approver)
        async throws(ApprovalError) -> HeldRequest
    {
        let now = unixNow
        return try await apply(id) { $0.deciding(decision, by: approver, at: now) }
    }

    /// The request once it is final, or as it stands at `deadline` (a long-poll: wakes at once for changes made
    /// in this process, reads the store every ``pollInterval`` for other instances', and at the expiry).
    public func wait(for id: String, until deadline: ContinuousClock.Instant) async throws(ApprovalError)
        -> HeldRequest
    {
        while true {
            let seen = changes.version
            guard let request = try await request(id: id) else { throw .unknownRequest(id) }
            let current = clock.now
            if request.status.isFinal || current >= deadline || Task.isCancelled { return request }
            var wake = min(deadline, current.advanced(by: pollInterval))
            if request.status == .held {
                wake = min(wake, current.advanced(by: .seconds(max(0, request.expiresAt - unixNow))))
            }
            await changes.wait(after: seen, until: wake, on: clock)
        }
    }

    /// Signs approved request `id` once: claims it (one instance at a time), prepares its actions again for
    /// its initiator (the caller; `admit` checks the initiator's rights now), checks they are exactly the approved ones
    /// (``PreparedActions/approved(by:)``), runs `beforeSigning` (an audit intent record; a text refuses for
    /// now), signs under the request's journal key and stores `result`'s JSON of the signed batch.
    ///
    /// A failure with nothing sent, or a refusal, ends it as failed; a failure after its transactions may have
    /// left (or a passing one: no node, the journal, the audit trail) leaves it approved for a later attempt,
    /// which re-sends what was journalled — until its expiry, when nothing was sent.
    ///
    /// - Returns: the request as stored after the attempt.
    /// - Throws: ``ApprovalError/quorumNotMet(id:)`` (not approved yet), ``ApprovalError/signingElsewhere(id:)``,
    ///   ``ApprovalError/notPending(id:status:)`` (final already).
    public func sign(
        _ id: String, with dispatcher: RpcDispatcher, deadline: ContinuousClock.Instant? = nil,
        admit: (@Sendable (ResolvedRequest) -> String?)? = nil,
        beforeSigning: (@Sendable (PreparedActions) async -> String?)? = nil,
        result: @Sendable (HeldRequest, SignedActions) -> JSONValue = HeldRequests.plainResult
    ) async throws(ApprovalError) -> HeldRequest {
        let now = unixNow
        let lease = signingLease.components.seconds
        let claimed = try await apply(id) { $0.claimingSigning(at: now, leaseSeconds: lease) }
        let outcome: HeldRequest.SigningOutcome
        do throws(DispatchError) {
            let approved = try Self.cleared(
                try await dispatcher.prepare(actions: claimed.actions, caller: claimed.initiator, admit: admit),
                by: claimed)
            if let refusal = await beforeSigning?(approved) {
                outcome = .retry(refusal)
            } else {
                let signed = try await dispatcher.sign(approved, idempotencyKey: claimed.journalKey, deadline: deadline)
                outcome = .signed(result(claimed, signed).serialized)
            }
        } catch {
            outcome = Self.outcome(of: error, expired: unixNow >= claimed.expiresAt)
        }
        return try await apply(id) { $0.finishing(outcome) }
    }

    /// `prepared` cleared by `request`'s approvals, or a refusal naming why not.
    private static func cleared(_ prepared: PreparedActions, by request: HeldRequest) throws(DispatchError)
        -> PreparedActions
    {
        do { return try prepared.approved(by: request) } catch {
            throw DispatchError(index: nil, method: nil, kind: .notPermitted(error.description))
        }
    }

    /// One result: the string; several: the array.
    public static let plainResult: @Sendable (HeldRequest, SignedActions) -> JSONValue = { _, signed in
        signed.results.count == 1 ? .string(signed.results[0]) : .array(signed.results.map(JSONValue.string))
    }

    /// How a failed signing ends: retried while its transactions may be out (or the failure passes), else failed.
    static func outcome(of error: DispatchError, expired: Bool) -> HeldRequest.SigningOutcome {
        let reason = error.description
        if case .transactionReverted = error.kind { return .failed(reason) }
        if !error.broadcast.isEmpty { return .retry(reason) }
        switch error.kind {
        case .noNode, .journalFailure, .usageStoreFailure, .verificationUnavailable, .cancelled, .transactionNotMined:
            return expired ? .failed(reason) : .retry(reason)
        default: return .failed(reason)
        }
    }

    /// Expires the requests whose time ran out (at most `limit`); returns them.
    public func expireDue(limit: Int = 500) async throws(ApprovalError) -> [HeldRequest] {
        let now = unixNow
        var expired: [HeldRequest] = []
        for request in try await store.requests(in: [.held], limit: limit) where request.expiresAt <= now {
            if let stored = try? await apply(request.id, { $0.expiring(at: now) }), stored.status == .expired {
                expired.append(stored)
            }
        }
        return expired
    }

    /// The approved requests not signed yet, and those whose signer's lease lapsed (at most `limit`).
    public func dueForSigning(limit: Int = 500) async throws(ApprovalError) -> [HeldRequest] {
        let now = unixNow
        return try await store.requests(in: [.approved, .signing], limit: limit).filter {
            $0.status == .approved || ($0.signingUntil ?? 0) <= now
        }
    }

    /// Applies `decide` in one store transaction, then wakes this process's long-polls and reports a request it
    /// made final.
    private func apply(_ id: String, _ decide: @escaping @Sendable (HeldRequest) -> HeldRequestUpdate)
        async throws(ApprovalError) -> HeldRequest
    {
        let written = Mutex<HeldRequest?>(nil)
        let result: Result<HeldRequest, ApprovalError>
        do {
            result = .success(
                try await store.update(id: id) { current in
                    let update = decide(current)
                    written.withLock { $0 = update.next }
                    return update
                })
        } catch {
            result = .failure(error)
        }
        if case .failure(.store) = result { return try result.get() }
        if let next = written.withLock({ $0 }) {
            changes.changed()
            if next.status.isFinal { await finished?(next) }
        }
        return try result.get()
    }
}
