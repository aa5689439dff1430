import EthereumPrimitives
import SignerKitSupport

/// What the audit log and the metrics keep of one JSON-RPC call: never a secret, never a whole payload.
public struct CallRecord: Sendable {
    /// The client's name.
    public var client: String
    /// The method called.
    public var method: String
    /// The chains its actions were for.
    public var chains: [ChainID] = []
    /// The accounts that signed (or would have).
    public var accounts: [Address] = []
    /// What each action does (``PreviewKind`` raw values) and its warnings.
    public var previews: [(kind: String, warnings: [String])] {
        notedPreviews
            + previewedRequests.map { request in
                let preview = request.preview
                return (preview.kind.rawValue, preview.warnings.map(\.rawValue))
            }
    }
    private var notedPreviews: [(kind: String, warnings: [String])] = []
    /// Requests whose previews are worked out only when asked for (by the audit record).
    private var previewedRequests: [ResolvedRequest] = []
    /// The backends that signed, one per signed action.
    public var backends: [String] = []
    /// The error code, or `nil` when the call succeeded.
    public var errorCode: Int?
    /// Keccak-256 of the result's JSON text (`nil` for errors); worked out when first read after
    /// `noteResult(_:)` (a service without an audit trail never hashes its results).
    public var resultHash: Bytes32? {
        get { storedResultHash ?? result.map { Keccak256.hash(Array($0.serialized.utf8)) } }
        set {
            storedResultHash = newValue
            result = nil
        }
    }
    private var storedResultHash: Bytes32?
    /// The successful call's result, kept until ``resultHash`` is read.
    private var result: JSONValue?
    /// How long the call took.
    public var duration: Duration = .zero
    /// Whether the answer is the stored one of an earlier request with the same idempotency key (nothing was
    /// signed again).
    public var replayed = false
    /// Why the answer could not be stored for retries with its idempotency key, if it could not.
    public var idempotencyProblem: String?
    /// Whether this is the record written *before* a call that may broadcast is signed (outcome `intent`):
    /// no transaction leaves without an audit line, even when the answer's own line cannot be written.
    public var intent = false
    /// The held request the call made, decided on or signed (`heldRequest` in the audit record).
    public var heldRequest: String?
    /// The actions the call asked to sign, kept in the record only when the service keeps them (with a
    /// ledger): what `signerkit policy replay` decides again under another policy file (`actions`).
    public var actions: [WalletRpcAction] = []
    /// What the policy file loaded in shadow decided on the call (`shadow`), never enforced: `nil` without one.
    public var shadowVerdicts: [PolicyVerdict]?
    /// SHA-256 of the policy file in force when the call was answered (`policySet`; `nil`: none), so a ledger
    /// receipt says which policies a signature was made under.
    public var policySet: Bytes32?
    /// The HTTP request the call came in (not part of the record: trails store it beside it).
    package var requestID = ""

    /// A record for `client` calling `method`.
    public init(client: String, method: String) {
        self.client = client
        self.method = method
    }

    /// Notes what the previews of a call's actions say.
    package mutating func note(_ previews: [SigningPreview]) {
        for preview in previews {
            if !chains.contains(preview.chain) { chains.append(preview.chain) }
            if !accounts.contains(preview.account) { accounts.append(preview.account) }
            notedPreviews.append((preview.kind.rawValue, preview.warnings.map(\.rawValue)))
        }
    }

    /// Notes a successful call's result, hashed only when ``resultHash`` is read.
    package mutating func noteResult(_ value: JSONValue) {
        storedResultHash = nil
        result = value
    }

    /// Notes the chains and accounts of a call's resolved actions; their previews wait until ``previews``
    /// is read (a service without an audit trail never computes them).
    package mutating func note(_ requests: [ResolvedRequest]) {
        for request in requests {
            if !chains.contains(request.action.chainId) { chains.append(request.action.chainId) }
            if !accounts.contains(request.account) { accounts.append(request.account) }
        }
        previewedRequests += requests
    }

    /// `intent`, `error`, `replayed` or `ok`.
    package var outcome: String { intent ? "intent" : errorCode != nil ? "error" : replayed ? "replayed" : "ok" }

    /// The audit record as JSON (without time and request id): what `AuditLog` writes as a line and a
    /// database trail stores as a row.
    public var json: JSONObject {
        var object = JSONObject([
            "client": .string(client), "method": .string(EchoedText.abbreviated(method)),
            "chains": .array(chains.map { .string($0.description) }),
            "accounts": .array(accounts.map { .string($0.checksummed) }),
            "preview": .array(
                previews.map { preview in
                    .object(
                        JSONObject([
                            "kind": .string(preview.kind), "warnings": .array(preview.warnings.map(JSONValue.string)),
                        ]))
                }),
            "outcome": .string(outcome),
            "ms": .number(String(duration.millisecondsRoundedUp)),
        ])
        if let errorCode { object["code"] = .number(String(errorCode)) }
        if let resultHash { object["resultHash"] = .string(resultHash.hex) }
        if !actions.isEmpty { object["actions"] = .array(actions.map(\.json)) }
        if let shadowVerdicts { object["shadow"] = .array(shadowVerdicts.map { .object($0.json) }) }
        if let policySet { object["policySet"] = .string(LedgerEntry.plainHex(policySet)) }
        if let heldRequest { object["heldRequest"] = .string(EchoedText.abbreviated(heldRequest)) }
        if let idempotencyProblem { object["idempotencyProblem"] = .string(EchoedText.abbreviated(idempotencyProblem)) }
        return object
    }
}
