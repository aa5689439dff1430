import CGcrypt
import EthereumPrimitives
import Secp256k1

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The libgcrypt operations behind Web3 Secret Storage: scrypt and PBKDF2-HMAC-SHA-256 key
/// derivation, AES-128-CTR, randomness, plus the Keccak-256 MAC and its constant-time check.
///
/// Secret inputs and outputs are ``SecureBytes`` (libgcrypt secure memory); nothing secret is
/// copied into ordinary Swift arrays.
enum KeystoreCrypto {
    /// libgcrypt's identifier for scrypt with the block size r = 1. `GCRY_KDF_SCRYPT` (48)
    /// hard-wires r = 8; libgcrypt's scrypt also accepts 41 for r = 1 (added for the RFC 7914
    /// test vectors, and what the Web3 Secret Storage scrypt vector needs). No other r is
    /// reachable through `gcry_kdf_derive`.
    static let scryptR1Algorithm: Int32 = 41

    /// Block sizes libgcrypt's `gcry_kdf_derive` can run scrypt with.
    static let supportedScryptR: Set<Int> = [1, 8]

    /// Makes sure libgcrypt has been initialised by the Secp256k1 module, whose helper is not
    /// public: allocating secure memory runs its one-time initialisation sequence.
    private static let initialized: Bool = {
        _ = SecureBytes(zeroedCount: 1)
        return true
    }()

    /// Runs libgcrypt's initialisation once; cheap afterwards.
    static func ensureInitialized() {
        _ = initialized
    }

    /// libgcrypt's text for an error code (no secrets involved).
    static func describe(_ error: gcry_error_t) -> String {
        guard let text = gcry_strerror(error) else { return "libgcrypt error \(error)" }
        return String(cString: text)
    }

    // MARK: key derivation

    /// Derives `length` bytes from `password` with the keystore's KDF into secure memory.
    ///
    /// Parameters must already be validated (``Web3Keystore`` does so when parsing and when
    /// encrypting).
    static func deriveKey(
        password: SecureBytes, kdf: KeystoreKDF, salt: [UInt8], length: Int
    ) throws(KeystoreError) -> SecureBytes {
        ensureInitialized()
        let algorithm: Int32
        let subAlgorithm: Int32
        let iterations: UInt
        switch kdf {
        case .scrypt(let n, let r, let p):
            // gcry_kdf_derive(…, algo, subalgo = N, salt, iterations = p, …); r is fixed by algo.
            switch r {
            case 8: algorithm = Int32(GCRY_KDF_SCRYPT.rawValue)
            case 1: algorithm = scryptR1Algorithm
            default:
                throw .unsupported(
                    field: "crypto.kdfparams.r", reason: "libgcrypt's scrypt supports only r = 1 and r = 8, got \(r)")
            }
            guard let nValue = Int32(exactly: n) else {
                throw .invalidField(field: "crypto.kdfparams.n", reason: "must be at most \(Int32.max)")
            }
            subAlgorithm = nValue
            iterations = UInt(p)
        case .pbkdf2(let c):
            algorithm = Int32(GCRY_KDF_PBKDF2.rawValue)
            subAlgorithm = Int32(GCRY_MD_SHA256.rawValue)
            iterations = UInt(c)
        }
        return try SecureBytes(count: length) { (out: UnsafeMutableRawBufferPointer) throws(KeystoreError) in
            let status: gcry_error_t = password.withUnsafeBytes { passphrase in
                salt.withUnsafeBytes { saltBytes in
                    gcry_kdf_derive(
                        passphrase.baseAddress, passphrase.count, algorithm, subAlgorithm,
                        saltBytes.baseAddress, saltBytes.count, iterations, out.count, out.baseAddress)
                }
            }
            guard status == 0 else { throw .cryptoFailure("key derivation failed: \(describe(status))") }
        }
    }

    // MARK: AES-128-CTR

    /// Runs AES-128-CTR (encryption and decryption are the same operation) with the first 16
    /// bytes of `derivedKey` as key and `iv` as the initial counter block, reading `input` and
    /// writing `output` (same length).
    static func aes128CTR(
        derivedKey: SecureBytes, iv: [UInt8], input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer
    ) throws(KeystoreError) {
        ensureInitialized()
        precondition(input.count == output.count, "AES-CTR input and output differ in length")
        precondition(derivedKey.count >= 16 && iv.count == 16, "AES-128-CTR needs a 16-byte key and counter")
        var handle: gcry_cipher_hd_t?
        // GCRY_CIPHER_SECURE keeps the expanded key schedule in secure memory too.
        var status = gcry_cipher_open(
            &handle, Int32(GCRY_CIPHER_AES.rawValue), Int32(GCRY_CIPHER_MODE_CTR.rawValue),
            UInt32(GCRY_CIPHER_SECURE.rawValue))
        guard status == 0, let handle else {
            throw .cryptoFailure("cannot open AES-128-CTR: \(describe(status))")
        }
        defer { gcry_cipher_close(handle) }  // wipes the key schedule
        status = derivedKey.withUnsafeBytes { key in gcry_cipher_setkey(handle, key.baseAddress, 16) }
        guard status == 0 else { throw .cryptoFailure("cannot set the AES key: \(describe(status))") }
        status = iv.withUnsafeBytes { counter in gcry_cipher_setctr(handle, counter.baseAddress, counter.count) }
        guard status == 0 else { throw .cryptoFailure("cannot set the AES-CTR counter: \(describe(status))") }
        guard input.count > 0 else { return }
        status = gcry_cipher_encrypt(handle, output.baseAddress, output.count, input.baseAddress, input.count)
        guard status == 0 else { throw .cryptoFailure("AES-128-CTR failed: \(describe(status))") }
    }

    // MARK: MAC

    /// keccak256(derivedKey[16..<32] ‖ ciphertext), the Web3 Secret Storage MAC. The
    /// concatenation is assembled in secure memory.
    static func mac(derivedKey: SecureBytes, ciphertext: [UInt8]) -> Bytes32 {
        precondition(derivedKey.count >= 32, "the derived key must have at least 32 bytes")
        let input = SecureBytes(count: 16 + ciphertext.count) { (buffer: UnsafeMutableRawBufferPointer) in
            derivedKey.withUnsafeBytes { key in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: key[16..<32]))
            }
            ciphertext.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: buffer[16...]).copyMemory(from: bytes)
            }
        }
        defer { input.wipe() }
        return input.withUnsafeBytes { Keccak256.hash($0) }
    }

    // MARK: randomness

    /// `count` bytes from libgcrypt's `GCRY_STRONG_RANDOM` generator (salts, IVs, UUIDs —
    /// public values, so ordinary memory).
    static func randomBytes(_ count: Int) -> [UInt8] {
        ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 {
                gcry_randomize(base, buffer.count, GCRY_STRONG_RANDOM)
            }
        }
        return bytes
    }

    /// A random (version 4) UUID in the lower-case 8-4-4-4-12 form.
    static func uuidV4() -> String {
        var bytes = randomBytes(16)
        bytes[6] = (bytes[6] & 0x0f) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3f) | 0x80  // RFC 4122 variant
        let hex = Hex.encode(bytes, prefix: false)
        let utf8 = Array(hex.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, c) in utf8.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append(UInt8(ascii: "-")) }
            out.append(c)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
