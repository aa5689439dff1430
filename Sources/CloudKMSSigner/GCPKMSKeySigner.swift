import EthereumPrimitives
import Secp256k1
import SignerKit

/// A `PrehashSigner` whose secp256k1 key is a Google Cloud KMS key version (`EC_SIGN_SECP256K1_SHA256`); the
/// key never leaves KMS.
///
/// ``load(name:client:)`` calls `getPublicKey` once: the PEM `SubjectPublicKeyInfo` is parsed strictly into the
/// public key and the address. Each signature is one `asymmetricSign` over exactly the 32-byte digest (with its
/// CRC32C checked both ways). KMS answers DER with a random `s`, high half as often as not, and no recovery
/// id: the signature is brought to low s (EIP-2) and the recovery id is found by trial recovery against the
/// cached public key, so a high `s`, a recovery id other than 0 or a signature of another key can never come
/// out of here; and the dispatcher verifies every result again.
public final class GCPKMSKeySigner: PrehashSigner, CustomStringConvertible {
    /// The key version's resource name.
    public let name: String
    /// The key's public key.
    public let publicKey: PublicKey
    /// The account this key controls.
    public let address: Address
    /// The client every call goes through.
    public let client: GCPKMSClient

    /// The only algorithm accepted.
    public static let algorithm = "EC_SIGN_SECP256K1_SHA256"

    private init(name: String, publicKey: PublicKey, client: GCPKMSClient) {
        self.name = name
        self.publicKey = publicKey
        address = publicKey.address
        self.client = client
    }

    /// The signer for the key version `name` (`projects/…/cryptoKeyVersions/V`), after one `getPublicKey`.
    ///
    /// - Throws: ``CloudKMSError``: ``CloudKMSError/invalidKeyName(_:name:field:reason:)``, the service's errors
    ///   (not found, not enabled, access denied, throttling, token failures),
    ///   ``CloudKMSError/wrongAlgorithm(_:key:found:)`` for a key of another algorithm, and
    ///   ``CloudKMSError/malformedResponse(_:key:field:reason:)`` for a public key that is not strict PEM/DER.
    public static func load(name: String, client: GCPKMSClient) async throws(CloudKMSError) -> GCPKMSKeySigner {
        try GCPKMSKeyName.check(name)
        let answer = try await client.publicKey(name: name)
        guard answer.algorithm == algorithm else {
            throw .wrongAlgorithm(.googleCloudKMS, key: name, found: answer.algorithm)
        }
        let publicKey: PublicKey
        do {
            publicKey = try PublicKey(subjectPublicKeyInfo: try RSASigningKey.pemBlock(answer.pem, label: "PUBLIC KEY"))
        } catch let error as RSASigningKey.Failure {
            throw .malformedResponse(.googleCloudKMS, key: name, field: "pem", reason: error.reason)
        } catch {
            throw .malformedResponse(.googleCloudKMS, key: name, field: "pem", reason: "\(error)")
        }
        return GCPKMSKeySigner(name: name, publicKey: publicKey, client: client)
    }

    /// Signs a 32-byte digest in Cloud KMS; the result is low-s and recovers to ``address``.
    ///
    /// Failures are `SignerError/underlying(_:error:)` with the ``CloudKMSError`` (a signature that does not
    /// recover to the key: `SignerError/verificationFailed(_:)`); ``signReportingKMSError(prehash:)`` throws
    /// the ``CloudKMSError`` itself.
    public func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
        do throws(CloudKMSError) {
            return try await signReportingKMSError(prehash: prehash)
        } catch {
            if case .signatureMismatch = error { throw .verificationFailed(error.description) }
            throw .underlying("cloudkms.asymmetricSign", error: error)
        }
    }

    /// ``sign(prehash:)`` with the typed error.
    public func signReportingKMSError(prehash: Digest32) async throws(CloudKMSError) -> RecoverableSignature {
        let der = try await client.signDigest(prehash, name: name)
        let (r, s): (Bytes32, Bytes32)
        do { (r, s) = try ECDSA.signatureComponents(der: der) } catch {
            throw .malformedResponse(.googleCloudKMS, key: name, field: "signature", reason: error.description)
        }
        do { return try ECDSA.recoverableSignature(prehash: prehash, r: r, s: s, expected: publicKey) } catch {
            throw .signatureMismatch(.googleCloudKMS, key: name)
        }
    }

    /// `GCPKMSKeySigner(key "projects/…", address 0x…, at https://…)`; never a credential.
    public var description: String {
        "GCPKMSKeySigner(key \(CloudKMSError.quoted(name)), address \(address.checksummed), "
            + "at \(client.endpoint.absoluteString) as \(CloudKMSError.quoted(client.serviceAccount.clientEmail)))"
    }
}
