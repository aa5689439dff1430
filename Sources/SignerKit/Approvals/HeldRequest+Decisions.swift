/// What a change to a held request decided, the one rule every ``HeldRequestStore`` applies inside its
/// transaction: the request to write (`nil`: unchanged) and the refusal to report once it is written (an
/// approval that comes too late writes the expiry, then reports it).
public struct HeldRequestUpdate: Sendable, Equatable {
    /// The request to write.
    public var next: HeldRequest?
    /// The refusal to throw after writing.
    public var refusal: ApprovalError?

    /// An update writing `next` (if any), then refusing with `refusal` (if any).
    public init(next: HeldRequest? = nil, refusal: ApprovalError? = nil) {
        self.next = next
        self.refusal = refusal
    }
}

/// An approver as the caller authenticated it: its name and groups.
public struct Approver: Sendable, Hashable {
    /// The client's name.
    public let name: String
    /// Its groups.
    public let groups: Set<String>

    /// The approver `name` in `groups`.
    public init(name: String, groups: Set<String>) {
        self.name = name
        self.groups = groups
    }
}

extension HeldRequest {
    /// An approver's decision; an approval may name the digest it saw (refused when it is another request's).
    public enum Decision: Sendable, Equatable {
        /// Approve (bound to `digest` when given).
        case approve(digest: String?)
        /// Reject, with a reason.
        case reject(reason: String?)
    }

    /// The groups whose members may decide.
    public var groups: Set<String> { Set(requirements.map(\.group)) }

    /// `decision` by `approver` at `now` (Unix seconds): an approval is added once per approver (the initiator
    /// never counts) and completes the request when every requirement has its approvals; any rejection ends it.
    /// A request past its expiry becomes ``Status/expired`` first.
    public func deciding(_ decision: Decision, by approver: Approver, at now: Int64) -> HeldRequestUpdate {
        let expiry = expiring(at: now)
        if expiry.next != nil { return HeldRequestUpdate(next: expiry.next, refusal: .expired(id: id)) }
        guard !status.isFinal else { return HeldRequestUpdate(refusal: .notPending(id: id, status: status)) }
        guard !approver.groups.isDisjoint(with: groups) else {
            return HeldRequestUpdate(refusal: .notInGroup(client: approver.name, groups: groups.sorted()))
        }
        var next = self
        switch decision {
        case .approve(let seen):
            if let seen, seen.lowercased() != digest { return HeldRequestUpdate(refusal: .digestMismatch(id: id)) }
            guard approver.name != initiator else {
                return HeldRequestUpdate(refusal: .initiatorCannotApprove(client: approver.name))
            }
            // Approved once is approved: a repeat, or an approval after the quorum, changes nothing.
            guard status == .held, !approvers.contains(approver.name) else { return HeldRequestUpdate() }
            next.approvals.append(
                Approval(client: approver.name, groups: approver.groups.sorted(), at: now, digest: digest))
            if next.quorumMet { next.status = .approved }
        case .reject(let reason):
            guard status == .held else { return HeldRequestUpdate(refusal: .notPending(id: id, status: status)) }
            next.status = .rejected
            next.rejection = Rejection(client: approver.name, reason: reason, at: now)
        }
        return HeldRequestUpdate(next: next)
    }

    /// A request still waiting for approvals past its expiry becomes ``Status/expired``; an approved one stays
    /// approved (its approvers decided in time) and is signed.
    public func expiring(at now: Int64) -> HeldRequestUpdate {
        guard status == .held, now >= expiresAt else { return HeldRequestUpdate() }
        var next = self
        next.status = .expired
        return HeldRequestUpdate(next: next)
    }

    /// Claims the signing of an approved request for `leaseSeconds` from `now` (or takes over one whose signer's
    /// lease lapsed: the journal re-sends what it journalled, never signs anew).
    public func claimingSigning(at now: Int64, leaseSeconds: Int64) -> HeldRequestUpdate {
        switch status {
        case .approved: break
        case .signing where (signingUntil ?? 0) <= now: break
        case .signing: return HeldRequestUpdate(refusal: .signingElsewhere(id: id))
        case .held: return HeldRequestUpdate(refusal: .quorumNotMet(id: id))
        default: return HeldRequestUpdate(refusal: .notPending(id: id, status: status))
        }
        var next = self
        next.status = .signing
        next.signingUntil = now + max(1, leaseSeconds)
        return HeldRequestUpdate(next: next)
    }

    /// The end of a signing this caller claimed: signed with `result` (JSON text), failed for good with a
    /// reason, or back to approved (`retry`) when its transactions may be on their way and a later attempt must
    /// re-send them.
    public func finishing(_ outcome: SigningOutcome) -> HeldRequestUpdate {
        guard status == .signing else { return HeldRequestUpdate(refusal: .notPending(id: id, status: status)) }
        var next = self
        next.signingUntil = nil
        switch outcome {
        case .signed(let result):
            next.status = .signed
            next.result = result
        case .failed(let reason):
            next.status = .failed
            next.failure = reason
        case .retry(let reason):
            next.status = .approved
            next.failure = reason
        }
        return HeldRequestUpdate(next: next)
    }

    /// How one signing attempt ended.
    public enum SigningOutcome: Sendable, Equatable {
        /// Signed: the call's result as JSON text.
        case signed(String)
        /// Failed with nothing sent: final.
        case failed(String)
        /// Failed after its transactions may have left: try again later (the journal re-sends them).
        case retry(String)
    }
}
