import EthereumPrimitives
import Secp256k1

/// Why no authority could be recovered from a signed authorization (EIP-7702's per-tuple checks; a node
/// skips such a tuple).
public enum AuthorityRecoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `yParity` is neither 0 nor 1.
    case invalidYParity(UInt8)
    /// s is above n/2; EIP-7702 (like EIP-2) accepts only low-s authorization signatures.
    case highS
    /// r or s is out of range, or no key matches the signature.
    case recovery(RecoveryError)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidYParity(let parity): "authorization yParity \(parity) is neither 0 nor 1"
        case .highS: "authorization signature s is above n/2 (EIP-7702 requires s <= n/2)"
        case .recovery(let error): "cannot recover the authority: \(error)"
        }
    }
}

extension Authorization {
    /// Signs ``signingHash`` with `key` (deterministic RFC 6979, low-s).
    ///
    /// This is the bare primitive below every policy: whoever holds a `PrivateKey` can sign anything. A
    /// wallet signs authorizations through SignerKit's `PrehashSigner.signAuthorization(_:policy:)`, which
    /// requires an `AllowedDelegates` policy.
    public func sign(with key: PrivateKey) -> SignedAuthorization {
        signed(with: key.sign(prehash: signingHash))
    }
}

extension SignedAuthorization {
    /// The account that signed the authorization (its authority), as a node recovers it.
    ///
    /// - Throws: ``AuthorityRecoveryError/invalidYParity(_:)``, ``AuthorityRecoveryError/highS`` for s
    ///   above n/2, ``AuthorityRecoveryError/recovery(_:)`` when r or s is 0 or not below n, or nothing
    ///   recovers.
    public func recoverAuthority() throws(AuthorityRecoveryError) -> Address {
        guard let signature else { throw .invalidYParity(yParity) }
        guard signature.isLowS else { throw .highS }
        do throws(RecoveryError) {
            return try ECDSA.recoverAddress(prehash: authorization.signingHash, signature: signature)
        } catch {
            throw .recovery(error)
        }
    }
}
