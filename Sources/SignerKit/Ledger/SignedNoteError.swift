import EthereumPrimitives

/// Why a text is not a signed note, why a note did not verify, or why a key could not sign one.
public enum SignedNoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The note does not end in a newline.
    case missingFinalNewline
    /// Line `line` holds an ASCII control character other than the newline.
    case controlCharacter(line: Int)
    /// No blank line separates the text from the signature lines.
    case missingBlankLine
    /// The blank line is the first line: there is no signed text.
    case emptyBody
    /// Nothing follows the blank line.
    case noSignatures
    /// More signature lines than ``SignedNote/maximumSignatures``.
    case tooManySignatures(Int)
    /// Line `line` is not `— <key name> <base64 key ID and signature>` (the key name non-empty, with no space
    /// or `+`; the base64 canonical and longer than the 4-byte key ID); `text` is the line, abbreviated
    /// (`EchoedText`).
    case malformedSignatureLine(line: Int, text: String)
    /// A key name that is empty or holds a space, a `+` or a control character (abbreviated, `EchoedText`).
    case invalidKeyName(String)
    /// The key could not sign.
    case signing(SignerError)
    /// The key's signature does not check out against its own address (a faulty backend): not written.
    case signerMismatch(SignatureCheck.Failure)
    /// No signature line is by the key `keyName` with `keyID`; `otherKeyIDs` are the key IDs of the lines
    /// under the same name (another key or another address by that name).
    case noSignatureByKey(keyName: String, keyID: UInt32, otherKeyIDs: [UInt32])
    /// The signature on line `line`, by the expected key, is `length` bytes, not 65 (r‖s‖v).
    case wrongSignatureLength(line: Int, length: Int)
    /// The signature on line `line` ends in `v` = `value`, not 27 or 28.
    case invalidRecoveryByte(line: Int, value: UInt8)
    /// The signature on line `line`, by the expected key name and ID, does not verify: high s, no recovery,
    /// or another address.
    case badSignature(line: Int, SignatureCheck.Failure)
    /// The note verified, but its text is not a checkpoint.
    case checkpoint(CheckpointError)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .missingFinalNewline: "the signed note does not end in a newline"
        case .controlCharacter(let line): "signed note line \(line) holds a control character"
        case .missingBlankLine: "the signed note has no blank line before its signatures"
        case .emptyBody: "the signed note has no text before its blank line"
        case .noSignatures: "the signed note has no signature line after its blank line"
        case .tooManySignatures(let count):
            "the signed note has \(count) signature lines; at most \(SignedNote.maximumSignatures) are read"
        case .malformedSignatureLine(let line, let text):
            "signed note line \(line) is not `— <key name> <base64 signature>`: \"\(text)\""
        case .invalidKeyName(let name):
            "invalid key name \"\(name)\": it must be non-empty with no space, `+` or control character"
        case .signing(let error): "the key could not sign the note: \(error)"
        case .signerMismatch(let failure): "the key's signature over the note does not check out: \(failure)"
        case .noSignatureByKey(let keyName, let keyID, let otherKeyIDs):
            "the note has no signature by key \(keyName) with key ID \(Self.hex(keyID))"
                + (otherKeyIDs.isEmpty
                    ? ""
                    : " (its signatures named \(keyName) have key IDs \(otherKeyIDs.map(Self.hex).joined(separator: ", ")):"
                        + " another address or another key type)")
        case .wrongSignatureLength(let line, let length):
            "the signature on line \(line) is \(length) bytes after its key ID, not 65 (r‖s‖v)"
        case .invalidRecoveryByte(let line, let value): "the signature on line \(line) has v = \(value), not 27 or 28"
        case .badSignature(let line, let failure): "the signature on line \(line) does not verify: \(failure)"
        case .checkpoint(let error): "the signed note is not a checkpoint: \(error)"
        }
    }

    /// A key ID as 8 lower-case hex digits.
    static func hex(_ keyID: UInt32) -> String {
        let digits = String(keyID, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
