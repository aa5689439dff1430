import EthereumPrimitives

/// One record of the audit ledger as it is stored: a JSON object on one line whose first two members are
/// `seq` (its leaf index, from 0) and `prev` (the RFC 9162 leaf hash of the record before it, in hex; 64
/// zeros for record 0), followed by the audit record's own members.
///
/// ```text
/// {"seq":1,"prev":"3f0a…","time":"2026-12-06T10:00:00.000Z","requestId":"…","call":0,"client":"shop",…}
/// ```
///
/// The leaf of the Merkle tree is the line's UTF-8 bytes without its newline: its leaf hash is
/// SHA-256(0x00 ‖ line). `seq` and `prev` let a verifier name the first record that was removed, inserted,
/// reordered or changed; the signed checkpoints make any rewrite of the chain evident.
public struct LedgerEntry: Sendable, Equatable {
    /// The line as stored (no newline): the leaf's bytes.
    public let text: String
    /// The record's leaf index.
    public let seq: Int
    /// The leaf hash of the record before it (zero for record 0).
    public let prev: Bytes32
    /// The RFC 9162 leaf hash of the line: SHA-256(0x00 ‖ line).
    public let leafHash: Bytes32

    /// The `prev` of record 0.
    public static let noPrevious = Bytes32()

    /// Seals `record` as leaf `seq` after the leaf whose hash is `prev` (a `seq` or `prev` member of the record
    /// is dropped).
    public init(seq: Int, prev: Bytes32, record: JSONObject) {
        let members = record.members.filter { $0.key != "seq" && $0.key != "prev" }
        self.init(seq: seq, prev: prev, recordText: JSONValue.object(JSONObject(members: members)).serialized)
    }

    /// Seals a record given as the serialized text of a JSON object with neither `seq` nor `prev` (serialized
    /// before the store's lock is taken, so only this prefixing happens under it).
    public init(seq: Int, prev: Bytes32, recordText: String) {
        let head = #"{"seq":"# + String(seq) + #","prev":""# + Self.plainHex(prev) + "\""
        let body = recordText.utf8.dropFirst()
        text = body.first == UInt8(ascii: "}") ? head + "}" : head + "," + String(decoding: body, as: UTF8.self)
        self.seq = seq
        self.prev = prev
        leafHash = MerkleHash.leaf(Array(text.utf8))
    }

    /// Reads a stored line.
    ///
    /// - Throws: ``LedgerEntryError`` saying what the line lacks.
    public init(parsing text: String) throws(LedgerEntryError) {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch { throw .notJSON }
        guard case .object(let object) = value else { throw .notJSON }
        guard case .number(let seqText)? = object["seq"], let seq = Int(seqText), seq >= 0, String(seq) == seqText
        else {
            throw .missing("seq")
        }
        guard let prevText = object["prev"]?.stringValue, let prev = Self.bytes32(plainHex: prevText) else {
            throw .missing("prev")
        }
        self.text = text
        self.seq = seq
        self.prev = prev
        leafHash = MerkleHash.leaf(Array(text.utf8))
    }

    /// The whole record (with `seq` and `prev`), parsed from ``text`` when asked for (empty if it is not an
    /// object, which a sealed or parsed entry always is).
    public var object: JSONObject {
        if case .object(let object)? = try? JSONValue(parsing: text) { return object }
        return JSONObject()
    }

    /// The record's `policySet` (SHA-256 of the policy file in force), if it has one.
    public var policySet: Bytes32? { object["policySet"]?.stringValue.flatMap(Self.bytes32(plainHex:)) }

    /// 64 lower-case hex digits, no `0x` (as `sha256sum` prints a hash).
    public static func plainHex(_ hash: Bytes32) -> String { String(hash.hex.dropFirst(2)) }

    /// The hash of 64 hex digits without `0x`.
    public static func bytes32(plainHex text: String) -> Bytes32? {
        guard text.utf8.count == 64, !text.hasPrefix("0x") else { return nil }
        return try? Bytes32(hex: "0x" + text.lowercased())
    }
}

/// Why a stored line is not a ledger record.
public enum LedgerEntryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line is not a JSON object.
    case notJSON
    /// The member is missing or malformed (`seq`: a decimal leaf index; `prev`: 64 hex digits).
    case missing(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notJSON: "not a JSON object"
        case .missing("seq"): "no valid seq (a decimal leaf index)"
        case .missing(let member): "no valid \(member) (64 hex digits)"
        }
    }
}
