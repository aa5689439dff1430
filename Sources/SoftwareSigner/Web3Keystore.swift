import EthereumPrimitives
import Secp256k1

/// A Web3 Secret Storage (version 3) keystore: an Ethereum private key encrypted under a
/// password, as geth, ethers and most wallets write it.
///
/// Supported: kdf `scrypt` (r = 1 or r = 8, the block sizes libgcrypt offers) and `pbkdf2` with
/// `prf: "hmac-sha256"`; cipher `aes-128-ctr`; MAC = keccak256(derivedKey[16..<32] ‖
/// ciphertext). All cryptography runs in libgcrypt; derived keys and the decrypted private
/// key exist only in libgcrypt secure memory and are wiped after use. The MAC is compared in
/// constant time and checked before anything is decrypted.
///
/// Parsing (`init(json:)`) validates every field and is cheap; the expensive key derivation
/// happens only in `decrypt(password:)` and `encrypt(_:password:kdf:)`.
///
/// A keystore holds no secret in the clear, so the value may be printed and stored freely.
public struct Web3Keystore: Sendable, Hashable {
    /// The `id` field (a UUID in keystores written here), if present.
    public let id: String?
    /// The `address` field, if present; `decrypt(password:)` checks it against the key.
    public let address: Address?
    /// The key derivation function and its cost parameters.
    public let kdf: KeystoreKDF
    /// `crypto.kdfparams.salt`.
    public let salt: [UInt8]
    /// `crypto.kdfparams.dklen`: bytes derived from the password (32 to 1024; only the first 32
    /// are used).
    public let derivedKeyLength: Int
    /// `crypto.cipherparams.iv`: the initial AES-128-CTR counter block (16 bytes).
    public let iv: [UInt8]
    /// `crypto.ciphertext`: the encrypted 32-byte private key.
    public let ciphertext: [UInt8]
    /// `crypto.mac`.
    public let mac: Bytes32

    /// Largest accepted `dklen`.
    static let maximumDerivedKeyLength = 1024
    /// Largest accepted salt, in bytes.
    static let maximumSaltLength = 1024

    // MARK: parsing

    /// Parses and validates keystore JSON text.
    ///
    /// The key may be spelled `crypto` or `Crypto`; `version` must be the number 3; unknown
    /// members are ignored. Hex fields may carry an optional `0x` prefix.
    ///
    /// - Throws: ``KeystoreError/invalidJSON(_:)`` for text that is not JSON,
    ///   ``KeystoreError/invalidField(field:reason:)`` naming the first bad or missing field
    ///   (e.g. `crypto.kdfparams.n: must be a power of two`),
    ///   ``KeystoreError/unsupported(field:reason:)`` for a cipher, KDF or PRF not implemented.
    public init(json text: String) throws(KeystoreError) {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch { throw .invalidJSON(error.description) }
        try self.init(value: value)
    }

    /// Parses and validates keystore JSON given as UTF-8 bytes (see ``init(json:)``).
    public init(json bytes: [UInt8]) throws(KeystoreError) {
        let value: JSONValue
        do { value = try JSONValue(parsing: bytes) } catch { throw .invalidJSON(error.description) }
        try self.init(value: value)
    }

    /// Validates an already parsed JSON document (see `init(json:)`).
    public init(value: JSONValue) throws(KeystoreError) {
        guard case .object(let root) = value else {
            throw .invalidField(field: "keystore", reason: "must be a JSON object, got \(value.kindName)")
        }
        let version = try Self.integer(Self.required(root, "version", path: "version"), path: "version")
        guard version == 3 else { throw .invalidField(field: "version", reason: "must be 3, got \(version)") }

        if let idValue = root["id"] {
            guard case .string(let id) = idValue else {
                throw .invalidField(field: "id", reason: "must be a string, got \(idValue.kindName)")
            }
            self.id = id
        } else {
            id = nil
        }

        if let addressValue = root["address"] {
            let bytes = try Self.hex(addressValue, path: "address", count: 20)
            guard let address = Address(bytes: bytes) else { preconditionFailure("20 bytes always form an address") }
            self.address = address
        } else {
            address = nil
        }

        let cryptoValue: JSONValue
        switch (root["crypto"], root["Crypto"]) {
        case (let lower?, nil): cryptoValue = lower
        case (nil, let upper?): cryptoValue = upper
        case (nil, nil): throw .invalidField(field: "crypto", reason: "is missing")
        case (.some, .some):
            throw .invalidField(field: "crypto", reason: "must appear once, found both crypto and Crypto")
        }
        let crypto = try Self.object(cryptoValue, path: "crypto")

        let cipher = try Self.string(Self.required(crypto, "cipher", path: "crypto.cipher"), path: "crypto.cipher")
        guard cipher == "aes-128-ctr" else {
            throw .unsupported(
                field: "crypto.cipher", reason: "only aes-128-ctr is supported, got \(Self.quote(cipher))")
        }
        let cipherParams = try Self.object(
            Self.required(crypto, "cipherparams", path: "crypto.cipherparams"), path: "crypto.cipherparams")
        iv = try Self.hex(
            Self.required(cipherParams, "iv", path: "crypto.cipherparams.iv"), path: "crypto.cipherparams.iv", count: 16
        )
        ciphertext = try Self.hex(
            Self.required(crypto, "ciphertext", path: "crypto.ciphertext"), path: "crypto.ciphertext", count: 32)

        let kdfName = try Self.string(Self.required(crypto, "kdf", path: "crypto.kdf"), path: "crypto.kdf")
        let kdfParams = try Self.object(
            Self.required(crypto, "kdfparams", path: "crypto.kdfparams"), path: "crypto.kdfparams")
        func parameter(_ name: String) throws(KeystoreError) -> Int {
            let path = "crypto.kdfparams.\(name)"
            return try Self.integer(Self.required(kdfParams, name, path: path), path: path)
        }
        switch kdfName {
        case "scrypt":
            kdf = .scrypt(n: try parameter("n"), r: try parameter("r"), p: try parameter("p"))
        case "pbkdf2":
            let prfPath = "crypto.kdfparams.prf"
            let prf = try Self.string(Self.required(kdfParams, "prf", path: prfPath), path: prfPath)
            guard prf == "hmac-sha256" else {
                throw .unsupported(field: prfPath, reason: "only hmac-sha256 is supported, got \(Self.quote(prf))")
            }
            kdf = .pbkdf2(iterations: try parameter("c"))
        default:
            throw .unsupported(
                field: "crypto.kdf", reason: "only scrypt and pbkdf2 are supported, got \(Self.quote(kdfName))")
        }
        try kdf.validate()
        derivedKeyLength = try parameter("dklen")
        guard (32...Self.maximumDerivedKeyLength).contains(derivedKeyLength) else {
            throw .invalidField(
                field: "crypto.kdfparams.dklen", reason: "must be between 32 and \(Self.maximumDerivedKeyLength)")
        }
        salt = try Self.hex(
            Self.required(kdfParams, "salt", path: "crypto.kdfparams.salt"), path: "crypto.kdfparams.salt", count: nil)
        guard (1...Self.maximumSaltLength).contains(salt.count) else {
            throw .invalidField(
                field: "crypto.kdfparams.salt", reason: "must be between 1 and \(Self.maximumSaltLength) bytes")
        }

        let macBytes = try Self.hex(Self.required(crypto, "mac", path: "crypto.mac"), path: "crypto.mac", count: 32)
        guard let mac = Bytes32(macBytes) else { preconditionFailure("32 bytes always form a Bytes32") }
        self.mac = mac
    }

    /// Builds a keystore from its parts, validating them as `init(json:)` does.
    public init(
        id: String?, address: Address?, kdf: KeystoreKDF, salt: [UInt8], derivedKeyLength: Int = 32,
        iv: [UInt8], ciphertext: [UInt8], mac: Bytes32
    ) throws(KeystoreError) {
        try kdf.validate()
        guard (32...Self.maximumDerivedKeyLength).contains(derivedKeyLength) else {
            throw .invalidField(
                field: "crypto.kdfparams.dklen", reason: "must be between 32 and \(Self.maximumDerivedKeyLength)")
        }
        guard (1...Self.maximumSaltLength).contains(salt.count) else {
            throw .invalidField(
                field: "crypto.kdfparams.salt", reason: "must be between 1 and \(Self.maximumSaltLength) bytes")
        }
        guard iv.count == 16 else { throw .invalidField(field: "crypto.cipherparams.iv", reason: "must be 16 bytes") }
        guard ciphertext.count == 32 else {
            throw .invalidField(field: "crypto.ciphertext", reason: "must be 32 bytes")
        }
        self.id = id
        self.address = address
        self.kdf = kdf
        self.salt = salt
        self.derivedKeyLength = derivedKeyLength
        self.iv = iv
        self.ciphertext = ciphertext
        self.mac = mac
    }

    // MARK: decryption

    /// Decrypts the private key. The password bytes are moved into secure memory at once and
    /// the caller's array is overwritten with zeros, whether or not decryption succeeds.
    ///
    /// - Throws: ``KeystoreError/wrongPassword`` on a MAC mismatch,
    ///   ``KeystoreError/addressMismatch(stored:derived:)`` if the `address` field names another
    ///   account, ``KeystoreError/invalidKey(_:)`` if the plaintext is not a valid key,
    ///   ``KeystoreError/cryptoFailure(_:)`` if libgcrypt fails (e.g. out of memory).
    public func decrypt(password: inout [UInt8]) throws(KeystoreError) -> PrivateKey {
        let secure = SecureBytes(wiping: &password)
        defer { secure.wipe() }
        return try decrypt(password: secure)
    }

    /// Decrypts the private key with a password held in secure memory; the buffer is only read
    /// (the caller owns and wipes it). Errors as for ``decrypt(password:)``.
    public func decrypt(password: SecureBytes) throws(KeystoreError) -> PrivateKey {
        let derivedKey = try KeystoreCrypto.deriveKey(
            password: password, kdf: kdf, salt: salt, length: derivedKeyLength)
        defer { derivedKey.wipe() }
        let computed = KeystoreCrypto.mac(derivedKey: derivedKey, ciphertext: ciphertext)
        guard ConstantTime.equal(computed.bytes, mac.bytes) else { throw .wrongPassword }
        let plaintext = try SecureBytes(count: ciphertext.count) {
            (out: UnsafeMutableRawBufferPointer) throws(KeystoreError) in
            // Array.withUnsafeBytes only rethrows untyped errors; carry the typed one out in a Result.
            let status: Result<Void, KeystoreError> = ciphertext.withUnsafeBytes { input in
                Result { () throws(KeystoreError) in
                    try KeystoreCrypto.aes128CTR(derivedKey: derivedKey, iv: iv, input: input, output: out)
                }
            }
            try status.get()
        }
        defer { plaintext.wipe() }
        let key: PrivateKey
        do { key = try PrivateKey(secret: plaintext) } catch { throw .invalidKey(error) }
        if let address, address != key.address {
            throw .addressMismatch(stored: address, derived: key.address)
        }
        return key
    }

    // MARK: encryption

    /// Encrypts `key` under `password` with a fresh random salt (32 bytes), IV (16 bytes) and
    /// UUID v4 id, recording the key's address. The caller's password array is overwritten with
    /// zeros, whether or not encryption succeeds.
    ///
    /// - Parameters:
    ///   - key: the key to encrypt.
    ///   - password: the password's bytes (overwritten with zeros).
    ///   - kdf: ``KeystoreKDF/standard`` (scrypt n = 131072, r = 8, p = 1) unless given; use
    ///     ``KeystoreKDF/light`` or smaller for tests.
    /// - Throws: ``KeystoreError/invalidField(field:reason:)`` or
    ///   ``KeystoreError/unsupported(field:reason:)`` for unusable KDF parameters,
    ///   ``KeystoreError/cryptoFailure(_:)`` if libgcrypt fails.
    public static func encrypt(
        _ key: PrivateKey, password: inout [UInt8], kdf: KeystoreKDF = .standard
    ) throws(KeystoreError) -> Web3Keystore {
        let secure = SecureBytes(wiping: &password)
        defer { secure.wipe() }
        return try encrypt(key, password: secure, kdf: kdf)
    }

    /// Encrypts `key` under a password held in secure memory; the buffer is only read. See
    /// ``encrypt(_:password:kdf:)``.
    public static func encrypt(
        _ key: PrivateKey, password: SecureBytes, kdf: KeystoreKDF = .standard
    ) throws(KeystoreError) -> Web3Keystore {
        try kdf.validate()
        let salt = KeystoreCrypto.randomBytes(32)
        let iv = KeystoreCrypto.randomBytes(16)
        let derivedKey = try KeystoreCrypto.deriveKey(password: password, kdf: kdf, salt: salt, length: 32)
        defer { derivedKey.wipe() }
        var ciphertext = [UInt8](repeating: 0, count: 32)
        let status: Result<Void, KeystoreError> = ciphertext.withUnsafeMutableBytes { out in
            key.withUnsafeSecretBytes { secret in
                Result { () throws(KeystoreError) in
                    try KeystoreCrypto.aes128CTR(derivedKey: derivedKey, iv: iv, input: secret, output: out)
                }
            }
        }
        try status.get()
        let mac = KeystoreCrypto.mac(derivedKey: derivedKey, ciphertext: ciphertext)
        return try Web3Keystore(
            id: KeystoreCrypto.uuidV4(), address: key.address, kdf: kdf, salt: salt, derivedKeyLength: 32,
            iv: iv, ciphertext: ciphertext, mac: mac)
    }

    // MARK: serialisation

    /// The keystore as a JSON value, laid out as geth writes it: `address` (lower-case hex
    /// without `0x`), `crypto` {`cipher`, `ciphertext`, `cipherparams`, `kdf`, `kdfparams`,
    /// `mac`}, `id`, `version`; absent optional fields are omitted.
    public var jsonValue: JSONValue {
        var kdfParams = JSONObject()
        let kdfName: String
        switch kdf {
        case .scrypt(let n, let r, let p):
            kdfName = "scrypt"
            kdfParams["dklen"] = .number(String(derivedKeyLength))
            kdfParams["n"] = .number(String(n))
            kdfParams["p"] = .number(String(p))
            kdfParams["r"] = .number(String(r))
            kdfParams["salt"] = .string(Hex.encode(salt, prefix: false))
        case .pbkdf2(let iterations):
            kdfName = "pbkdf2"
            kdfParams["c"] = .number(String(iterations))
            kdfParams["dklen"] = .number(String(derivedKeyLength))
            kdfParams["prf"] = .string("hmac-sha256")
            kdfParams["salt"] = .string(Hex.encode(salt, prefix: false))
        }
        var crypto = JSONObject()
        crypto["cipher"] = .string("aes-128-ctr")
        crypto["ciphertext"] = .string(Hex.encode(ciphertext, prefix: false))
        crypto["cipherparams"] = .object(JSONObject(["iv": .string(Hex.encode(iv, prefix: false))]))
        crypto["kdf"] = .string(kdfName)
        crypto["kdfparams"] = .object(kdfParams)
        crypto["mac"] = .string(Hex.encode(mac.bytes, prefix: false))
        var root = JSONObject()
        if let address { root["address"] = .string(Hex.encode(address.bytes, prefix: false)) }
        root["crypto"] = .object(crypto)
        if let id { root["id"] = .string(id) }
        root["version"] = .number("3")
        return .object(root)
    }

    /// Compact JSON text of ``jsonValue``, ready to write to a keystore file.
    public var json: String { jsonValue.serialized }

    // MARK: field helpers

    private static func required(_ object: JSONObject, _ key: String, path: String) throws(KeystoreError) -> JSONValue {
        guard let value = object[key] else { throw .invalidField(field: path, reason: "is missing") }
        return value
    }

    private static func object(_ value: JSONValue, path: String) throws(KeystoreError) -> JSONObject {
        guard case .object(let object) = value else {
            throw .invalidField(field: path, reason: "must be an object, got \(value.kindName)")
        }
        return object
    }

    private static func string(_ value: JSONValue, path: String) throws(KeystoreError) -> String {
        guard case .string(let text) = value else {
            throw .invalidField(field: path, reason: "must be a string, got \(value.kindName)")
        }
        return text
    }

    /// A non-negative integer written as plain decimal digits (no sign, fraction or exponent).
    private static func integer(_ value: JSONValue, path: String) throws(KeystoreError) -> Int {
        guard case .number(let text) = value else {
            throw .invalidField(field: path, reason: "must be a number, got \(value.kindName)")
        }
        if text.hasPrefix("-") { throw .invalidField(field: path, reason: "must not be negative") }
        var result = 0
        for c in text.utf8 {
            guard (0x30...0x39).contains(c) else {
                throw .invalidField(field: path, reason: "must be an integer")
            }
            let (shifted, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(c - 0x30))
            guard !overflow1, !overflow2 else { throw .invalidField(field: path, reason: "is too large") }
            result = sum
        }
        guard !text.isEmpty else { throw .invalidField(field: path, reason: "must be an integer") }
        return result
    }

    /// Hex text (optionally `0x`-prefixed) of `count` bytes, or any length when `count` is nil.
    private static func hex(_ value: JSONValue, path: String, count: Int?) throws(KeystoreError) -> [UInt8] {
        let text = try string(value, path: path)
        var utf8 = Substring(text).utf8
        if utf8.count >= 2, utf8.first == 0x30, let x = utf8.dropFirst().first, x == 0x78 || x == 0x58 {
            utf8 = utf8.dropFirst(2)
        }
        let expectation = count.map { "\($0 * 2) hex digits (\($0) bytes)" } ?? "hex digits"
        guard utf8.count % 2 == 0, count.map({ utf8.count == $0 * 2 }) ?? true else {
            throw .invalidField(field: path, reason: "must be \(expectation), got \(utf8.count) characters")
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let next = utf8.index(after: index)
            guard let high = Hex.nibble(utf8[index]), let low = Hex.nibble(utf8[next]) else {
                throw .invalidField(field: path, reason: "must be \(expectation), found a non-hex character")
            }
            bytes.append(high << 4 | low)
            index = utf8.index(after: next)
        }
        return bytes
    }

    /// A short quoted rendering of a (non-secret) field value for error messages.
    private static func quote(_ text: String) -> String {
        let limit = 40
        let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return JSONValue.quoted(shown)
    }
}

extension Web3Keystore: CustomStringConvertible {
    /// `Web3Keystore(address: 0x…, kdf: scrypt(n: …, r: …, p: …))`.
    public var description: String {
        "Web3Keystore(address: \(address?.checksummed ?? "none"), kdf: \(kdf))"
    }
}
