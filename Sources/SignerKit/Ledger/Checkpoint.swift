import EthereumPrimitives

/// A signed tree head of the ledger: the log's origin, its size, its RFC 9162 root hash and the time it was
/// made, as the body of a C2SP tlog-checkpoint (the note text a ``SignedNote`` signs):
///
/// ```text
/// <origin>
/// <tree size in decimal, no leading zeros>
/// <root hash in standard padded base64>
/// time <unix seconds in decimal, no leading zeros>
/// ```
///
/// every line ending in U+000A. The `time` line is SignerKit's one extension line (the spec allows opaque
/// extension lines after the root hash); it is optional, so a plain C2SP checkpoint reads too, and any other
/// extension line is refused rather than ignored, so nothing signed goes unread.
public struct Checkpoint: Sendable, Hashable {
    /// The log's identity, e.g. `signer.example.com/audit` (non-empty, no control character; the spec
    /// recommends a schema-less URL, and the signing key's name should match it).
    public let origin: String
    /// The number of leaves in the tree.
    public let size: Int
    /// The root hash of the tree at ``size`` (``MerkleHash/emptyRoot`` for size 0).
    public let root: Bytes32
    /// When the checkpoint was made, in seconds since the Unix epoch (`nil`: the body has no `time` line).
    public let time: Int64?

    /// A checkpoint of the tree of `size` leaves with root hash `root`.
    ///
    /// - Throws: ``CheckpointError/invalidOrigin(_:)``, ``CheckpointError/negativeSize(_:)`` or
    ///   ``CheckpointError/negativeTime(_:)``.
    public init(origin: String, size: Int, root: Bytes32, time: Int64? = nil) throws(CheckpointError) {
        guard !origin.isEmpty, !NoteText.hasControlCharacter(origin) else {
            throw .invalidOrigin(EchoedText.abbreviated(origin))
        }
        guard size >= 0 else { throw .negativeSize(size) }
        if let time, time < 0 { throw .negativeTime(time) }
        self.origin = origin
        self.size = size
        self.root = root
        self.time = time
    }

    /// The note text: origin, size, base64 root hash and, when there is a time, the `time` line, each ending
    /// in a newline.
    public var body: String {
        var text = "\(origin)\n\(size)\n\(StandardBase64.encode(root.bytes))\n"
        if let time { text += "time \(time)\n" }
        return text
    }
}
