import EthereumPrimitives
import Secp256k1
import SignerKit

/// A `PrehashSigner` whose secp256k1 key lives in AWS KMS (an `ECC_SECG_P256K1` key for `SIGN_VERIFY`); the
/// key never leaves KMS.
///
/// ``load(keyID:client:)`` calls `GetPublicKey` once: the DER `SubjectPublicKeyInfo` is parsed strictly into
/// the public key and the address, and the key's ARN is kept, so every later `Sign` goes to that key even if
/// an alias is moved. Each signature is one `Sign` with `MessageType=DIGEST` and `ECDSA_SHA_256` over exactly
/// the 32-byte digest. KMS answers DER with a random `s`, high half as often as not, and no recovery id: the
/// signature is brought to low s (EIP-2) and the recovery id is found by trial recovery against the cached
/// public key (`ECDSA/recoverableSignature(prehash:r:s:expected:)`), so a high `s`, a recovery id other
/// than 0 or a signature of another key can never come out of here; and the dispatcher verifies every result
/// again.
///
/// Safe from any number of concurrent tasks: signatures are independent requests, in flight at once on
/// libcurl's engine (a 100-action batch is not 100 round trips in a row).
public final class AWSKMSKeySigner: PrehashSigner, CustomStringConvertible {
    /// The key as the caller named it (key id, key ARN or `alias/NAME`).
    public let keyID: String
    /// The key's ARN, as `GetPublicKey` answered it; what `Sign` is asked for.
    public let keyARN: String
    /// The key's public key.
    public let publicKey: PublicKey
    /// The account this key controls.
    public let address: Address
    /// The client every call goes through.
    public let client: AWSKMSClient

    private init(keyID: String, keyARN: String, publicKey: PublicKey, client: AWSKMSClient) {
        self.keyID = keyID
        self.keyARN = keyARN
        self.publicKey = publicKey
        address = publicKey.address
        self.client = client
    }

    /// The signer for `keyID` (a key id, key ARN or `alias/NAME`), after one `GetPublicKey`.
    ///
    /// - Throws: ``AWSKMSError``: ``AWSKMSError/invalidKeyID(_:)``, the KMS errors (not found, disabled,
    ///   pending deletion, access denied, expired credentials, throttling), ``AWSKMSError/wrongKeySpec(keyID:keySpec:keyUsage:)``
    ///   for a key that is not `ECC_SECG_P256K1` for `SIGN_VERIFY`, and
    ///   ``AWSKMSError/malformedResponse(keyID:field:reason:)`` for a public key that is not strict DER.
    public static func load(keyID: String, client: AWSKMSClient) async throws(AWSKMSError) -> AWSKMSKeySigner {
        try AWSKMSKeyID.check(keyID)
        let answer = try await client.publicKey(keyID: keyID)
        guard answer.keySpec == "ECC_SECG_P256K1", answer.keyUsage == "SIGN_VERIFY" else {
            throw .wrongKeySpec(keyID: keyID, keySpec: answer.keySpec, keyUsage: answer.keyUsage)
        }
        let publicKey: PublicKey
        do { publicKey = try PublicKey(subjectPublicKeyInfo: answer.subjectPublicKeyInfo) } catch {
            throw .malformedResponse(keyID: keyID, field: "PublicKey", reason: error.description)
        }
        return AWSKMSKeySigner(keyID: keyID, keyARN: answer.keyARN, publicKey: publicKey, client: client)
    }

    /// Signs a 32-byte digest in KMS; the result is low-s and recovers to ``address``.
    ///
    /// Failures are `SignerError/underlying(_:error:)` with the ``AWSKMSError`` (a signature that does not
    /// recover to the key: `SignerError/verificationFailed(_:)`); ``signReportingKMSError(prehash:)`` throws
    /// the ``AWSKMSError`` itself.
    public func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
        do throws(AWSKMSError) {
            return try await signReportingKMSError(prehash: prehash)
        } catch {
            if case .signatureMismatch = error { throw .verificationFailed(error.description) }
            throw .underlying("kms:Sign", error: error)
        }
    }

    /// ``sign(prehash:)`` with the typed KMS error.
    public func signReportingKMSError(prehash: Digest32) async throws(AWSKMSError) -> RecoverableSignature {
        let der = try await client.signDigest(prehash, keyID: keyARN, naming: keyID)
        let (r, s): (Bytes32, Bytes32)
        do { (r, s) = try ECDSA.signatureComponents(der: der) } catch {
            throw .malformedResponse(keyID: keyID, field: "Signature", reason: error.description)
        }
        do { return try ECDSA.recoverableSignature(prehash: prehash, r: r, s: s, expected: publicKey) } catch {
            throw .signatureMismatch(keyID: keyID)
        }
    }

    /// `AWSKMSKeySigner(key "alias/…", address 0x…, AWS KMS in … at …)`; never a credential.
    public var description: String {
        "AWSKMSKeySigner(key \(AWSKMSError.quoted(keyID)), address \(address.checksummed), \(client.endpoint))"
    }
}
