import EthereumPrimitives

/// A C2SP signed note: a text ending in a newline, a blank line, then one signature line per signature,
/// `— <key name> <base64(4-byte key ID ‖ signature)>`.
///
/// SignerKit signs checkpoints with secp256k1 keys (``sign(_:with:keyName:)``) and checks them against an
/// Ethereum address (``verify(keyName:address:)``). Signatures by other keys and types are kept and
/// ignored, as the spec requires, so a note cosigned by witnesses still verifies.
///
/// ```swift
/// let checkpoint = try Checkpoint(origin: "signer.example.com/audit", size: tree.size, root: tree.root)
/// let note = try await SignedNote.sign(checkpoint, with: key, keyName: "signer.example.com/audit")
/// let read = try SignedNote(parsing: note.text)
/// let verified = try read.verify(keyName: "signer.example.com/audit", address: key.address)
/// ```
public struct SignedNote: Sendable, Hashable {
    /// One signature line.
    public struct Signature: Sendable, Hashable {
        /// The key name on the line.
        public let keyName: String
        /// The key ID: the first 4 bytes of the decoded signature, big-endian.
        public let keyID: UInt32
        /// The signature bytes after the key ID.
        public let bytes: [UInt8]

        /// The line: em dash, space, key name, space, base64 of key ID and signature, newline.
        var line: String {
            let id = withUnsafeBytes(of: keyID.bigEndian) { Array($0) }
            return "— \(keyName) \(StandardBase64.encode(id + bytes))\n"
        }
    }

    /// The most signature lines ``init(parsing:)`` reads (the spec asks verifiers for a limit of at least 16).
    public static let maximumSignatures = 64

    /// The signed text, ending in a newline (a ``Checkpoint/body``).
    public let body: String
    /// The signature lines, in order.
    public let signatures: [Signature]

    /// The whole note: ``body``, a blank line, the signature lines.
    public var text: String { body + "\n" + signatures.map(\.line).joined() }

    /// A note of `body` with `signatures`.
    init(body: String, signatures: [Signature]) {
        self.body = body
        self.signatures = signatures
    }

    /// The line number of signature `index` (from 0).
    func lineNumber(ofSignature index: Int) -> Int {
        body.utf8.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 } + 2 + index
    }

    /// Reads a note strictly: a final newline, no control character, the text up to the *last* blank line,
    /// then one to ``maximumSignatures`` well-formed signature lines. Nothing is verified here
    /// (``verify(keyName:address:)`` does that); the text must not be used before.
    ///
    /// - Throws: ``SignedNoteError`` naming what is wrong (with its line when there is one).
    public init(parsing text: String) throws(SignedNoteError) {
        guard text.utf8.last == 0x0A else { throw .missingFinalNewline }
        let lines = NoteText.lines(text)
        if let index = lines.firstIndex(where: NoteText.hasControlCharacter) {
            throw .controlCharacter(line: index + 1)
        }
        guard let blank = lines.lastIndex(where: \.isEmpty) else { throw .missingBlankLine }
        guard blank > 0 else { throw .emptyBody }
        let signatureLines = lines[(blank + 1)...]
        guard !signatureLines.isEmpty else { throw .noSignatures }
        guard signatureLines.count <= Self.maximumSignatures else { throw .tooManySignatures(signatureLines.count) }
        var signatures: [Signature] = []
        for (index, line) in zip(signatureLines.indices, signatureLines) {
            guard let signature = Self.signature(line) else {
                throw .malformedSignatureLine(line: index + 1, text: EchoedText.abbreviated(line))
            }
            signatures.append(signature)
        }
        self.init(body: lines[..<blank].map { $0 + "\n" }.joined(), signatures: signatures)
    }

    /// `— <key name> <base64>` read, or `nil`.
    private static func signature(_ line: Substring) -> Signature? {
        let prefix = "— ".utf8
        guard line.utf8.starts(with: prefix) else { return nil }
        let rest = Substring(line.utf8.dropFirst(prefix.count))
        guard let space = rest.utf8.firstIndex(of: 0x20) else { return nil }
        let name = rest[..<space]
        let encoded = rest[rest.utf8.index(after: space)...]
        guard NoteText.isKeyName(name), let bytes = StandardBase64.decode(encoded), bytes.count > 4 else {
            return nil
        }
        let keyID = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Signature(keyName: String(name), keyID: keyID, bytes: Array(bytes[4...]))
    }
}
