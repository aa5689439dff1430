import EthereumPrimitives
import Secp256k1
import SignerKit

/// A `PrehashSigner` backed by a secp256k1 private key held in process memory (libgcrypt
/// secure memory, wiped on release).
///
/// Create one from hex text, a key file, an environment variable, a Web3 Secret Storage
/// keystore and its password, or a freshly generated key. Key text may be 64 hex digits with
/// or without `0x`; surrounding whitespace (such as a file's trailing newline) is ignored. Key
/// text from files and environment variables is decoded straight into secure memory.
///
/// `description`, `debugDescription` and mirrors show only the address, and every error names
/// the source (file path, variable name) but never the key or password.
public struct SoftwareKeySigner: PrehashSigner, Sendable {
    /// The environment variable read by ``init(environmentVariable:)`` when no name is given.
    public static let defaultEnvironmentVariable = "SIGNERKIT_PRIVATE_KEY"

    /// The key. Its own `description` is redacted too.
    public let privateKey: PrivateKey

    /// The account this key controls.
    public var address: Address { privateKey.address }

    /// Wraps an existing key.
    public init(privateKey: PrivateKey) {
        self.privateKey = privateKey
    }

    /// Parses 64 hex digits, optionally `0x`-prefixed; surrounding whitespace is ignored. The
    /// string itself cannot be wiped: keep its lifetime short.
    ///
    /// - Throws: ``SoftwareKeyError/invalidKey(source:reason:)`` with source ``KeySource/text``.
    public init(hex text: String) throws(SoftwareKeyError) {
        do {
            let secret = try SecretSources.decodeKeyHex(text)
            defer { secret.wipe() }
            privateKey = try PrivateKey(secret: secret)
        } catch {
            throw .invalidKey(source: .text, reason: error)
        }
    }

    /// Reads a hex key (as for ``init(hex:)``) from the file at `path`, straight into secure
    /// memory. A trailing newline is fine. File permissions are not checked.
    ///
    /// - Throws: ``SoftwareKeyError/unreadableFile(path:reason:)`` if the file cannot be read,
    ///   ``SoftwareKeyError/invalidKey(source:reason:)`` naming the path if its contents are not
    ///   a key.
    public init(keyFile path: String) throws(SoftwareKeyError) {
        let secret = try SecretSources.readKeyFile(path)
        defer { secret.wipe() }
        do { privateKey = try PrivateKey(secret: secret) } catch {
            throw .invalidKey(source: .file(path: path), reason: error)
        }
    }

    /// Reads a hex key (as for ``init(hex:)``) from the environment variable `name`, decoding
    /// the process environment's bytes in place. The variable is left set.
    ///
    /// - Throws: ``SoftwareKeyError/environmentVariableNotSet(name:)``, or
    ///   ``SoftwareKeyError/invalidKey(source:reason:)`` naming the variable.
    public init(environmentVariable name: String = SoftwareKeySigner.defaultEnvironmentVariable)
        throws(SoftwareKeyError)
    {
        let secret = try SecretSources.readKeyVariable(name)
        defer { secret.wipe() }
        do { privateKey = try PrivateKey(secret: secret) } catch {
            throw .invalidKey(source: .environmentVariable(name: name), reason: error)
        }
    }

    /// Decrypts Web3 Secret Storage v3 keystore JSON. The caller's password array is
    /// overwritten with zeros, whatever the outcome.
    ///
    /// - Throws: ``SoftwareKeyError/keystore(source:reason:)`` with source
    ///   ``KeySource/keystoreText`` and the ``KeystoreError`` (e.g. ``KeystoreError/wrongPassword``).
    public init(keystoreJSON json: String, password: inout [UInt8]) throws(SoftwareKeyError) {
        let secure = SecureBytes(wiping: &password)
        defer { secure.wipe() }
        try self.init(keystoreJSON: json, password: secure)
    }

    /// Decrypts keystore JSON with a password held in secure memory (only read; the caller
    /// wipes it). Errors as for the variant taking
    /// the password as an array.
    public init(keystoreJSON json: String, password: SecureBytes) throws(SoftwareKeyError) {
        do {
            privateKey = try Web3Keystore(json: json).decrypt(password: password)
        } catch {
            throw .keystore(source: .keystoreText, reason: error)
        }
    }

    /// Reads and decrypts the keystore file at `path`. The caller's password array is
    /// overwritten with zeros, whatever the outcome.
    ///
    /// - Throws: ``SoftwareKeyError/unreadableFile(path:reason:)`` or
    ///   ``SoftwareKeyError/keystore(source:reason:)`` naming the path.
    public init(keystoreFile path: String, password: inout [UInt8]) throws(SoftwareKeyError) {
        let secure = SecureBytes(wiping: &password)
        defer { secure.wipe() }
        try self.init(keystoreFile: path, password: secure)
    }

    /// Reads and decrypts the keystore file at `path` with a password held in secure memory
    /// (only read). Errors as for the variant taking the password as an array.
    public init(keystoreFile path: String, password: SecureBytes) throws(SoftwareKeyError) {
        let bytes = try SecretSources.readKeystoreFile(path)
        do {
            privateKey = try Web3Keystore(json: bytes).decrypt(password: password)
        } catch {
            throw .keystore(source: .keystoreFile(path: path), reason: error)
        }
    }

    /// A signer for a new random key from libgcrypt's strongest generator.
    public static func generate() -> SoftwareKeySigner {
        SoftwareKeySigner(privateKey: .generate())
    }

    /// Encrypts this key as a Web3 Secret Storage v3 keystore (see
    /// `Web3Keystore/encrypt(_:password:kdf:)`); the caller's password array is wiped.
    public func keystore(password: inout [UInt8], kdf: KeystoreKDF = .standard) throws(KeystoreError) -> Web3Keystore {
        try Web3Keystore.encrypt(privateKey, password: &password, kdf: kdf)
    }

    /// Signs a 32-byte digest with deterministic (RFC 6979) ECDSA; the result is low-s. Never
    /// throws for a software key.
    public func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
        privateKey.sign(prehash: prehash)
    }
}

extension SoftwareKeySigner: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `SoftwareKeySigner(address: 0x…)`; never the key.
    public var description: String { "SoftwareKeySigner(address: \(address.checksummed))" }

    /// The same redacted form as ``description``.
    public var debugDescription: String { description }

    /// A mirror that shows only the address.
    public var customMirror: Mirror {
        Mirror(self, children: ["address": address.checksummed], displayStyle: .struct)
    }
}
