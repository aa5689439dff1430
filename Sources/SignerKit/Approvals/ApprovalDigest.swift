import EthereumPrimitives

/// The digest an approval is bound to: Keccak-256 of every action (chain, method, params) and its preview as
/// approvers see it, length-prefixed. The same actions with another preview (a policy or token list changed,
/// a permit's deadline passed meanwhile) have another digest, and are not signed on the old approvals.
enum ApprovalDigest {
    /// The digest of a prepared batch.
    static func of(_ requests: [ResolvedRequest]) -> Bytes32 {
        var parts = ["signerkit.approval.v1"]
        for request in requests {
            parts += [
                request.action.chainId.description, request.action.method, request.action.params,
                request.preview.json.serialized,
            ]
        }
        return ActionIdentity.digest(of: parts)
    }
}

extension PreparedActions {
    /// The previews of the actions, a JSON array in action order (what a held request shows its approvers).
    public var previewsJSON: JSONValue { .array(requests.map(\.preview.json)) }

    /// The digest approvals of these actions are bound to.
    public var approvalDigest: Bytes32 { ApprovalDigest.of(requests) }

    /// These actions, cleared for signing by `request`'s approvals: `request` must have every approval its
    /// rules need, be bound to exactly these actions and previews, and name every requirement these actions
    /// have now.
    ///
    /// - Throws: ``ApprovalError/quorumNotMet(id:)``, or ``ApprovalError/digestMismatch(id:)`` when the actions
    ///   or their previews are not the ones approved.
    public func approved(by request: HeldRequest) throws(ApprovalError) -> PreparedActions {
        guard request.quorumMet, [.approved, .signing].contains(request.status),
            Set(approvalRequirements).isSubset(of: Set(request.requirements))
        else { throw .quorumNotMet(id: request.id) }
        guard approvalDigest.hex == request.digest, request.approvals.allSatisfy({ $0.digest == request.digest })
        else { throw .digestMismatch(id: request.id) }
        var cleared = self
        cleared.approvedBy = request.id
        cleared.approvedRules = Set(request.requirements.map(\.rule))
        return cleared
    }

    /// These actions, also needing `requirements` (what a ``DispatchError/Kind/approvalRequired(_:)`` at signing
    /// named: a limit over time that holds instead of refusing), to be held for them.
    public func requiring(_ requirements: [ApprovalRequirement]) -> PreparedActions {
        var held = self
        for requirement in requirements where !held.approvalRequirements.contains(requirement) {
            held.approvalRequirements.append(requirement)
        }
        return held
    }
}
