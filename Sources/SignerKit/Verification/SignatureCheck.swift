import EthereumPrimitives
import Secp256k1

/// The one signature check every SignerKit layer uses: low-s (EIP-2), and recovery over the digest
/// SignerKit computed itself to the expected account.
///
/// ```swift
/// try SignatureCheck.verify(signature, over: digest, by: account)
/// ```
public enum SignatureCheck {
    /// Why a signature was refused.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// s is above n/2: the malleable twin of a canonical signature.
        case highS
        /// No public key recovers from the signature over the digest.
        case doesNotRecover(RecoveryError)
        /// The signature recovers, but to another account.
        case wrongSigner(expected: Address, actual: Address)

        /// A one-line explanation.
        public var description: String {
            switch self {
            case .highS: "signature has a high s value (above n/2; EIP-2 requires low s)"
            case .doesNotRecover(let error): "signature does not recover over the digest: \(error)"
            case .wrongSigner(let expected, let actual):
                "signature is by \(actual.checksummed), not by the account \(expected.checksummed)"
            }
        }
    }

    /// Checks that `signature` is low-s and recovers to `account` over `digest`.
    ///
    /// - Throws: ``Failure`` naming what is wrong.
    public static func verify(
        _ signature: RecoverableSignature, over digest: Digest32, by account: Address
    ) throws(Failure) {
        guard signature.isLowS else { throw .highS }
        let signer: Address
        do { signer = try ECDSA.recoverAddress(prehash: digest, signature: signature) } catch {
            throw .doesNotRecover(error)
        }
        guard signer == account else { throw .wrongSigner(expected: account, actual: signer) }
    }
}
