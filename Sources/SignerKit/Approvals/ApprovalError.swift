import EthereumPrimitives

/// Why a held request could not be approved, rejected, signed or found; every case names the request or the
/// client.
public enum ApprovalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No held request has this id (or the caller may not see it).
    case unknownRequest(String)
    /// It is final already (signed, rejected, expired or failed): nothing more can be decided.
    case notPending(id: String, status: HeldRequest.Status)
    /// Its time ran out before this decision; it will never be signed.
    case expired(id: String)
    /// The client that asked for the request cannot approve it.
    case initiatorCannotApprove(client: String)
    /// The client is in none of the groups the request's rules name.
    case notInGroup(client: String, groups: [String])
    /// The decision was made on another request (its digest differs): an approval is bound to what it saw.
    case digestMismatch(id: String)
    /// The request does not have its approvals yet.
    case quorumNotMet(id: String)
    /// Another instance is signing it now (its lease runs until then).
    case signingElsewhere(id: String)
    /// The held-request store failed.
    case store(String)

    /// A sentence naming the request or client.
    public var description: String {
        switch self {
        case .unknownRequest(let id): "no held request \(EchoedText.abbreviated(id).debugDescription)"
        case .notPending(let id, let status): "request \(id) is \(status.rawValue) already; nothing more can be decided"
        case .expired(let id): "request \(id) expired before it was approved; it will not be signed"
        case .initiatorCannotApprove(let client):
            "client \(client) asked for this request; its own approval does not count"
        case .notInGroup(let client, let groups):
            "client \(client) is in none of the groups this request needs (\(groups.joined(separator: ", ")))"
        case .digestMismatch(let id):
            "the approval was made on other actions or another preview than request \(id)'s; refused"
        case .quorumNotMet(let id): "request \(id) does not have the approvals its rules need"
        case .signingElsewhere(let id): "request \(id) is being signed by another instance"
        case .store(let message): "held-request store: \(message)"
        }
    }
}
