import EthereumPrimitives
import Foundation

/// A call held for approval: what it would sign (its actions and their previews, bound by ``digest``), who
/// asked, what it needs (``requirements``), its approvals and where it stands. A ``HeldRequestStore`` keeps it
/// across restarts and instances; it is signed at most once, through the same dispatcher, journal and audit as
/// any call, under ``journalKey``.
public struct HeldRequest: Sendable, Equatable, Codable {
    /// Where a held request stands.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Waiting for approvals.
        case held
        /// Every requirement has its approvals; not signed yet.
        case approved
        /// Being signed by one instance (its lease in ``HeldRequest/signingUntil``).
        case signing
        /// Signed; ``HeldRequest/result`` holds the call's own result.
        case signed
        /// An approver rejected it; never signed.
        case rejected
        /// Its time ran out before the approvals came; never signed.
        case expired
        /// Approved, but signing failed (``HeldRequest/failure`` says why).
        case failed

        /// The status callers see (`signerkit_requestStatus`): `approved` and `signing` are still `held`
        /// until the result is there.
        public var reported: String {
            switch self {
            case .held, .approved, .signing: "held"
            default: rawValue
            }
        }

        /// Whether it will not change again (signed, rejected, expired or failed).
        public var isFinal: Bool { [.signed, .rejected, .expired, .failed].contains(self) }
    }

    /// One approver's approval, bound to the digest it saw.
    public struct Approval: Sendable, Equatable, Codable {
        /// The approving client.
        public let client: String
        /// Its groups when it approved.
        public let groups: [String]
        /// When, in Unix seconds.
        public let at: Int64
        /// The request digest it approved.
        public let digest: String
    }

    /// Who rejected it and why.
    public struct Rejection: Sendable, Equatable, Codable {
        /// The rejecting client.
        public let client: String
        /// Its reason, if it gave one.
        public let reason: String?
        /// When, in Unix seconds.
        public let at: Int64
    }

    /// The request's id (`hr_` and 32 hex digits).
    public let id: String
    /// The client that asked for it.
    public let initiator: String
    /// The JSON-RPC method it called (its result has that method's shape).
    public let method: String
    /// The actions it signs, in order.
    public let actions: [WalletRpcAction]
    /// Their previews, a JSON array (what approvers see).
    public let previews: String
    /// Keccak-256 of the actions and their previews (`ApprovalDigest`): what every approval is bound to.
    public let digest: String
    /// What it needs.
    public let requirements: [ApprovalRequirement]
    /// What its transactions are journalled under (a retry or a second signing re-sends, never re-signs).
    public let journalKey: String
    /// When it was held, in Unix seconds.
    public let createdAt: Int64
    /// When it expires unsigned, in Unix seconds.
    public let expiresAt: Int64
    /// Where it stands.
    public var status: Status
    /// The approvals so far, in order.
    public var approvals: [Approval] = []
    /// The rejection, once rejected.
    public var rejection: Rejection?
    /// The end of the signing instance's lease, in Unix seconds (while ``Status/signing``).
    public var signingUntil: Int64?
    /// The call's own result, as JSON text, once signed.
    public var result: String?
    /// Why signing failed, once failed.
    public var failure: String?

    /// A request held now (`createdAt`) for `requirements`, expiring after the shortest of their lifetimes.
    public init(
        id: String, initiator: String, method: String, actions: [WalletRpcAction], previews: JSONValue,
        digest: Bytes32, requirements: [ApprovalRequirement], journalKey: String, createdAt: Int64
    ) {
        self.id = id
        self.initiator = initiator
        self.method = method
        self.actions = actions
        self.previews = previews.serialized
        self.digest = digest.hex
        self.requirements = requirements
        self.journalKey = journalKey
        self.createdAt = createdAt
        let lifetime = requirements.map(\.lifetimeSeconds).min() ?? 3600
        expiresAt = createdAt + Int64(clamping: lifetime)
        status = .held
    }

    /// The names of the clients whose approvals count, in order.
    public var approvers: [String] { approvals.map(\.client) }

    /// The rules that held it, comma-separated.
    public var rule: String { requirements.map(\.rule).joined(separator: ",") }

    /// Whether every requirement has its approvals from distinct members of its group (the initiator never
    /// counts).
    public var quorumMet: Bool {
        requirements.allSatisfy { requirement in
            approvals.filter { $0.client != initiator && $0.groups.contains(requirement.group) }.count
                >= requirement.required
        }
    }

    /// A new request id: `hr_` and 128 random bits in hex.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "hr_"
            + Hex.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }, prefix: false)
    }

    /// The id of the request a caller's idempotency key names (`scope`: the caller and its key): a retry of a
    /// held call finds the same request.
    public static func id(scope: [String]) -> String {
        "hr_" + String(ActionIdentity.digest(of: ["signerkit.held-request.v1"] + scope).hex.dropFirst(2).prefix(32))
    }

    /// The stored form (JSON text).
    public var storedText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// A request from its stored form.
    public init(storedText: String) throws(ApprovalError) {
        do { self = try JSONDecoder().decode(HeldRequest.self, from: Data(storedText.utf8)) } catch {
            throw .store("a held request does not decode: \(error)")
        }
    }
}

extension WalletRpcAction: Codable {
    private enum CodingKeys: String, CodingKey { case chainId, method, params }

    /// Decodes `{"chainId", "method", "params"}` (params as JSON text).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            chainId: try container.decode(ChainID.self, forKey: .chainId),
            method: try container.decode(String.self, forKey: .method),
            params: try container.decode(String.self, forKey: .params))
    }

    /// Encodes `{"chainId", "method", "params"}` (params as JSON text).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(chainId, forKey: .chainId)
        try container.encode(method, forKey: .method)
        try container.encode(params, forKey: .params)
    }
}
