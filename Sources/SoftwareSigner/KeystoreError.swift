import EthereumPrimitives
import Secp256k1

/// Why a Web3 Secret Storage (v3) keystore could not be read, decrypted or written.
///
/// Messages never contain the password, derived keys or the private key. Field paths use the
/// lower-case spelling (`crypto.kdfparams.n`) even when the document says `Crypto`.
public enum KeystoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not JSON; carries the parser's explanation.
    case invalidJSON(String)
    /// A field is missing, has the wrong JSON type or an invalid value. `field` is its dotted
    /// path (e.g. `crypto.kdfparams.n`), `reason` what is wrong (e.g. `must be a power of two`).
    case invalidField(field: String, reason: String)
    /// A well-formed field asks for something this implementation does not support (another
    /// cipher, KDF, PRF, or an scrypt block size libgcrypt cannot run).
    case unsupported(field: String, reason: String)
    /// The KDF parameters ask for more work than ``KeystoreKDF`` allows (a hostile keystore could
    /// otherwise keep the process busy for hours): `field` is the parameter (`crypto.kdfparams.c`,
    /// or `crypto.kdfparams.n` for scrypt's n·r·p), `limit` the bound it exceeds. Refused before any
    /// derivation starts.
    case excessiveWork(field: String, limit: String)
    /// The MAC does not match: the password is wrong (or the ciphertext, MAC or KDF parameters
    /// were altered).
    case wrongPassword
    /// The MAC matched but the decrypted bytes are not a valid secp256k1 private key.
    case invalidKey(KeyError)
    /// The keystore's `address` field names a different account than the decrypted key.
    case addressMismatch(stored: Address, derived: Address)
    /// libgcrypt reported an error (for example, scrypt could not allocate its memory).
    case cryptoFailure(String)

    /// The dotted path of the offending field, for ``invalidField(field:reason:)`` and
    /// ``unsupported(field:reason:)``; `nil` otherwise.
    public var field: String? {
        switch self {
        case .invalidField(let field, _), .unsupported(let field, _), .excessiveWork(let field, _): field
        default: nil
        }
    }

    /// A one-line explanation, e.g. `crypto.kdfparams.n: must be a power of two`.
    public var description: String {
        switch self {
        case .invalidJSON(let reason): "keystore is not valid JSON: \(reason)"
        case .invalidField(let field, let reason): "\(field): \(reason)"
        case .unsupported(let field, let reason): "\(field): unsupported: \(reason)"
        case .excessiveWork(let field, let limit): "\(field): too much key-derivation work: \(limit)"
        case .wrongPassword: "wrong password: keystore MAC mismatch"
        case .invalidKey(let error): "keystore decrypted to an unusable key: \(error)"
        case .addressMismatch(let stored, let derived):
            "keystore address \(stored.checksummed) does not match the decrypted key's address \(derived.checksummed)"
        case .cryptoFailure(let reason): "keystore cryptography failed: \(reason)"
        }
    }
}
