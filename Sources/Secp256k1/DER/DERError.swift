/// Why bytes are not the DER structure expected (a SubjectPublicKeyInfo, an ECDSA signature).
///
/// Each case names the byte offset where reading stopped; never the bytes themselves.
public enum DERError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends before the element that starts or continues at `offset`.
    case truncated(offset: Int)
    /// The element at `offset` has tag `found` where `expected` was required.
    case unexpectedTag(offset: Int, expected: UInt8, found: UInt8)
    /// The length at `offset` is not in DER's minimal definite form (or is indefinite, or too large).
    case nonMinimalLength(offset: Int)
    /// Bytes follow the structure, from `offset` on.
    case trailingBytes(offset: Int)
    /// The INTEGER at `offset` is negative, not minimally encoded, or longer than 32 bytes.
    case invalidInteger(offset: Int)
    /// The algorithm identifier is not `id-ecPublicKey` with the named curve secp256k1; carries the dotted
    /// OIDs found (the algorithm's, and the curve's when there is one).
    case notSecp256k1(algorithm: String, curve: String?)
    /// The BIT STRING at `offset` has unused bits, or its content is not a secp256k1 point.
    case invalidPoint(offset: Int)

    /// A one-line explanation naming the offset.
    public var description: String {
        switch self {
        case .truncated(let offset): "DER: input ends inside the element at byte \(offset)"
        case .unexpectedTag(let offset, let expected, let found):
            "DER: tag 0x\(String(found, radix: 16)) at byte \(offset), expected 0x\(String(expected, radix: 16))"
        case .nonMinimalLength(let offset): "DER: the length at byte \(offset) is not minimal and definite"
        case .trailingBytes(let offset): "DER: unexpected bytes from byte \(offset) on"
        case .invalidInteger(let offset):
            "DER: the INTEGER at byte \(offset) is negative, not minimal or longer than 32 bytes"
        case .notSecp256k1(let algorithm, let curve):
            "DER: the key is not a secp256k1 EC key (algorithm \(algorithm), curve \(curve ?? "none"))"
        case .invalidPoint(let offset): "DER: the BIT STRING at byte \(offset) is not an uncompressed secp256k1 point"
        }
    }
}
