/// Why bytes or text are not an acceptable secp256k1 key.
///
/// Messages never include the rejected input: it may be secret key material.
public enum KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A private key text that is not `0x` followed by 64 hex digits (surrounding whitespace is
    /// ignored).
    case invalidHex
    /// Raw private key bytes that are not exactly 32 bytes long; carries the length received.
    case wrongLength(Int)
    /// A private key scalar that is zero or not below the group order n.
    case outOfRange
    /// Bytes that are not a secp256k1 point in a supported encoding (33-byte compressed,
    /// 64-byte X‖Y, 65-byte `0x04`-prefixed uncompressed).
    case invalidPublicKey

    /// A short lower-case explanation without key material.
    public var description: String {
        switch self {
        case .invalidHex: "invalid private key: must be 32 bytes of 0x-hex"
        case .wrongLength(let count): "invalid private key: must be 32 bytes, got \(count)"
        case .outOfRange: "invalid private key: must be between 1 and n-1 (the secp256k1 group order)"
        case .invalidPublicKey:
            "invalid public key: must be a secp256k1 point as 33 compressed, 64 raw or 65 uncompressed bytes"
        }
    }
}

/// Why no public key could be recovered from, or matched to, a signature.
public enum RecoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// r or s is zero or not below the group order n.
    case invalidSignature
    /// No curve point has this r and recovery id, so no public key exists for the signature.
    case recoveryFailed
    /// Neither recovery id yields the expected public key.
    case noMatchingRecoveryId

    /// A short lower-case explanation.
    public var description: String {
        switch self {
        case .invalidSignature: "invalid signature: r and s must be between 1 and n-1"
        case .recoveryFailed: "signature recovery failed: no public key for this digest and signature"
        case .noMatchingRecoveryId: "signature does not match the expected public key with either recovery id"
        }
    }
}
