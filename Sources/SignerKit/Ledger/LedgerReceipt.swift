import EthereumPrimitives

/// Proof that one audit record is in the ledger: the record as stored, its leaf index, an RFC 9162 inclusion
/// proof to a signed checkpoint, that checkpoint, and the hash of the policy set in force when the record was
/// written. An auditor verifies it offline with the checkpoint key's address (``verify(against:key:)``).
///
/// As JSON (what `signerkit_receipt` answers and `signerkit audit verify --receipt` reads):
///
/// ```json
/// {"index": 41, "entry": "{\"seq\":41,\"prev\":\"…\",…}", "treeSize": 64,
///  "inclusion": ["<64 hex digits>", …], "checkpoint": "<signed note text>", "policySet": "<64 hex digits>"}
/// ```
public struct LedgerReceipt: Sendable, Equatable {
    /// The record's leaf index.
    public let index: Int
    /// The record as stored (``LedgerEntry``; the leaf's bytes).
    public let entry: String
    /// The size of the tree the proof is for (the checkpoint's).
    public let treeSize: Int
    /// The inclusion proof's hashes, deepest first.
    public let inclusion: [Bytes32]
    /// The signed checkpoint of size ``treeSize``.
    public let checkpoint: String
    /// SHA-256 of the policy file in force, as the record holds it (`nil`: no policy file).
    public let policySet: Bytes32?

    /// A receipt of these parts.
    public init(
        index: Int, entry: String, treeSize: Int, inclusion: [Bytes32], checkpoint: String, policySet: Bytes32?
    ) {
        self.index = index
        self.entry = entry
        self.treeSize = treeSize
        self.inclusion = inclusion
        self.checkpoint = checkpoint
        self.policySet = policySet
    }

    /// The receipt of the stored record `entry` (its `seq` the proof's leaf index) with its inclusion `proof`
    /// in the tree of the signed `checkpoint` (of the proof's tree size); the policy-set hash is the record's.
    public init(entry: LedgerEntry, proof: InclusionProof, checkpoint: String) {
        self.init(
            index: proof.leafIndex, entry: entry.text, treeSize: proof.treeSize, inclusion: proof.hashes,
            checkpoint: checkpoint, policySet: entry.policySet)
    }

    /// The receipt as JSON.
    public var json: JSONObject {
        var object = JSONObject([
            "index": .number(String(index)), "entry": .string(entry), "treeSize": .number(String(treeSize)),
            "inclusion": .array(inclusion.map { .string(LedgerEntry.plainHex($0)) }),
            "checkpoint": .string(checkpoint),
        ])
        object["policySet"] = policySet.map { .string(LedgerEntry.plainHex($0)) } ?? .null
        return object
    }

    /// Reads a receipt from its JSON.
    ///
    /// - Throws: ``LedgerReceiptError/malformed(_:)`` naming the member.
    public init(json value: JSONValue) throws(LedgerReceiptError) {
        guard case .object(let object) = value else { throw .malformed("the receipt is not a JSON object") }
        func count(_ key: String) throws(LedgerReceiptError) -> Int {
            guard case .number(let text)? = object[key], let number = Int(text), number >= 0 else {
                throw .malformed("\(key) must be a non-negative integer")
            }
            return number
        }
        index = try count("index")
        treeSize = try count("treeSize")
        guard let entry = object["entry"]?.stringValue else { throw .malformed("entry must be a string") }
        self.entry = entry
        guard let checkpoint = object["checkpoint"]?.stringValue else {
            throw .malformed("checkpoint must be a string")
        }
        self.checkpoint = checkpoint
        guard let hashes = object["inclusion"]?.arrayValue else { throw .malformed("inclusion must be an array") }
        var inclusion: [Bytes32] = []
        for (position, hash) in hashes.enumerated() {
            guard let text = hash.stringValue, let parsed = LedgerEntry.bytes32(plainHex: text) else {
                throw .malformed("inclusion[\(position)] must be 64 hex digits")
            }
            inclusion.append(parsed)
        }
        self.inclusion = inclusion
        switch object["policySet"] {
        case nil, .null?: policySet = nil
        case .string(let text)?:
            guard let parsed = LedgerEntry.bytes32(plainHex: text) else {
                throw .malformed("policySet must be 64 hex digits or null")
            }
            policySet = parsed
        default: throw .malformed("policySet must be 64 hex digits or null")
        }
    }

    /// Checks the receipt against `checkpointText` (a signed note the auditor holds) signed by the key of
    /// `key`: the note's signature, the tree size, the record's `seq`, the inclusion proof to the
    /// checkpoint's root, and that the policy-set hash is the one in the record.
    ///
    /// - Returns: the verified checkpoint.
    /// - Throws: ``LedgerReceiptError``.
    @discardableResult
    public func verify(against checkpointText: String, key: Address) throws(LedgerReceiptError) -> Checkpoint {
        let checkpoint: Checkpoint
        do { checkpoint = try LedgerVerifier.verifiedCheckpoint(checkpointText, key: key, index: 0) } catch {
            if case .checkpoint(_, let problem) = error { throw .checkpoint(problem) }
            throw .checkpoint(error.description)
        }
        guard checkpoint.size == treeSize else {
            throw .sizeMismatch(receipt: treeSize, checkpoint: checkpoint.size)
        }
        let parsed: LedgerEntry
        do { parsed = try LedgerEntry(parsing: entry) } catch { throw .entry(error.description) }
        guard parsed.seq == index else { throw .entry("its seq is \(parsed.seq), the receipt's index \(index)") }
        do {
            try InclusionProof(leafIndex: index, treeSize: treeSize, hashes: inclusion)
                .verify(leafHash: parsed.leafHash, root: checkpoint.root)
        } catch { throw .notIncluded(error) }
        guard parsed.policySet == policySet else { throw .policySetMismatch }
        return checkpoint
    }
}

/// Why a receipt does not hold.
public enum LedgerReceiptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The receipt's JSON lacks or misstates a member.
    case malformed(String)
    /// The checkpoint is not a checkpoint signed by the key.
    case checkpoint(String)
    /// The proof is for a tree of another size than the checkpoint's.
    case sizeMismatch(receipt: Int, checkpoint: Int)
    /// The entry is not a ledger record, or not the one at the receipt's index.
    case entry(String)
    /// The inclusion proof does not lead to the checkpoint's root.
    case notIncluded(MerkleProofError)
    /// The receipt's policy-set hash is not the one the record holds.
    case policySetMismatch

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .malformed(let problem): "the receipt is malformed: \(problem)"
        case .checkpoint(let problem): "the checkpoint does not hold: \(problem)"
        case .sizeMismatch(let receipt, let checkpoint):
            "the receipt proves inclusion in a tree of \(receipt) records; the checkpoint is of \(checkpoint) (ask signerkit_receipt for that size)"
        case .entry(let problem): "the receipt's entry does not hold: \(problem)"
        case .notIncluded(let error): "the record is not in the checkpoint's tree: \(error)"
        case .policySetMismatch: "the receipt's policySet is not the one its record holds"
        }
    }
}
