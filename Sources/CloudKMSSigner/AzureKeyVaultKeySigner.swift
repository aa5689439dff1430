import EthereumPrimitives
import Secp256k1
import SignerKit

/// A `PrehashSigner` whose secp256k1 key lives in Azure Key Vault (an `EC` key on curve `P-256K` that may
/// `sign`); the key never leaves the vault.
///
/// ``load(keyID:client:)`` calls `get key` once: the JWK's `x` and `y` make the public key and the address.
/// Each signature is one `sign` with `ES256K` over exactly the 32-byte digest. Key Vault answers r‖s (JWS
/// form, not DER) with a random `s`, high half as often as not, and no recovery id: the signature is brought
/// to low s (EIP-2) and the recovery id is found by trial recovery against the cached public key, and the
/// dispatcher verifies every result again.
public final class AzureKeyVaultKeySigner: PrehashSigner, CustomStringConvertible {
    /// The key id (vault, name and version).
    public let keyID: AzureKeyID
    /// The key's public key.
    public let publicKey: PublicKey
    /// The account this key controls.
    public let address: Address
    /// The client every call goes through.
    public let client: AzureKeyVaultClient

    private init(keyID: AzureKeyID, publicKey: PublicKey, client: AzureKeyVaultClient) {
        self.keyID = keyID
        self.publicKey = publicKey
        address = publicKey.address
        self.client = client
    }

    /// The signer for the key id URL `keyID`, after one `get key`.
    ///
    /// - Throws: ``CloudKMSError``: ``CloudKMSError/invalidKeyName(_:name:field:reason:)``, the service's errors
    ///   (not found, disabled, access denied, throttling, token failures),
    ///   ``CloudKMSError/wrongAlgorithm(_:key:found:)`` for a key that is not `EC` on `P-256K` or may not sign,
    ///   ``CloudKMSError/malformedResponse(_:key:field:reason:)`` for coordinates that are not a curve point.
    public static func load(keyID text: String, client: AzureKeyVaultClient) async throws(CloudKMSError)
        -> AzureKeyVaultKeySigner
    {
        let keyID = try AzureKeyID(text)
        let answer = try await client.key(keyID)
        guard answer.keyType == "EC" || answer.keyType == "EC-HSM", answer.curve == "P-256K" else {
            throw .wrongAlgorithm(
                .azureKeyVault, key: text,
                found: "kty \(answer.keyType), crv \(answer.curve.isEmpty ? "none" : answer.curve)")
        }
        guard answer.operations.isEmpty || answer.operations.contains("sign") else {
            throw .wrongAlgorithm(
                .azureKeyVault, key: text, found: "key_ops \(answer.operations.joined(separator: ",")) without sign")
        }
        guard answer.enabled else {
            throw .keyDisabled(.azureKeyVault, key: text, state: "attributes.enabled is false")
        }
        let publicKey: PublicKey
        do { publicKey = try PublicKey(bytes: [0x04] + answer.x + answer.y) } catch {
            throw .malformedResponse(.azureKeyVault, key: text, field: "key.x, key.y", reason: "not a secp256k1 point")
        }
        return AzureKeyVaultKeySigner(keyID: keyID, publicKey: publicKey, client: client)
    }

    /// Signs a 32-byte digest in Key Vault; the result is low-s and recovers to ``address``.
    ///
    /// Failures are `SignerError/underlying(_:error:)` with the ``CloudKMSError`` (a signature that does not
    /// recover to the key: `SignerError/verificationFailed(_:)`); ``signReportingKMSError(prehash:)`` throws
    /// the ``CloudKMSError`` itself.
    public func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
        do throws(CloudKMSError) {
            return try await signReportingKMSError(prehash: prehash)
        } catch {
            if case .signatureMismatch = error { throw .verificationFailed(error.description) }
            throw .underlying("keys/sign", error: error)
        }
    }

    /// ``sign(prehash:)`` with the typed error.
    public func signReportingKMSError(prehash: Digest32) async throws(CloudKMSError) -> RecoverableSignature {
        let raw = try await client.signDigest(prehash, id: keyID)
        guard let r = Bytes32(raw[0..<32]), let s = Bytes32(raw[32..<64]) else {
            throw .malformedResponse(.azureKeyVault, key: keyID.text, field: "value", reason: "not r‖s")
        }
        do { return try ECDSA.recoverableSignature(prehash: prehash, r: r, s: s, expected: publicKey) } catch {
            throw .signatureMismatch(.azureKeyVault, key: keyID.text)
        }
    }

    /// `AzureKeyVaultKeySigner(key "https://…", address 0x…)`; never a credential.
    public var description: String {
        "AzureKeyVaultKeySigner(key \(CloudKMSError.quoted(keyID.text)), address \(address.checksummed), "
            + "as client \(CloudKMSError.quoted(client.credentials.clientID)))"
    }
}
