import CGcrypt
import Secp256k1
import SignerKitSupport

/// The libgcrypt primitives behind BIP-39 and BIP-32: SHA-256 (the mnemonic checksum),
/// HMAC-SHA512 (key derivation) and PBKDF2-HMAC-SHA512 (the seed). Secret outputs are
/// ``SecureBytes``; HMAC state lives in secure memory (`GCRY_MD_FLAG_SECURE`).
enum HDCrypto {
    /// SHA-256 of `data`: the first byte only, which is all a BIP-39 checksum (at most 8 bits) needs.
    static func sha256FirstByte(_ data: UnsafeRawBufferPointer) -> UInt8 {
        KeystoreCrypto.ensureInitialized()
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            gcry_md_hash_buffer(Int32(GCRY_MD_SHA256.rawValue), digest.baseAddress, data.baseAddress, data.count)
            let first = digest[0]
            MemoryWiping.wipe(UnsafeMutableRawBufferPointer(digest))
            return first
        }
    }

    /// SHA-256 of public data (the wordlist check in the tests).
    static func sha256(_ data: [UInt8]) -> [UInt8] { SHA256.hash(data) }

    /// HMAC-SHA512(key, data) into a fresh 64-byte secure buffer.
    static func hmacSHA512(key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> SecureBytes {
        KeystoreCrypto.ensureInitialized()
        var handle: gcry_md_hd_t?
        let flags = GCRY_MD_FLAG_HMAC.rawValue | GCRY_MD_FLAG_SECURE.rawValue
        let opened = gcry_md_open(&handle, Int32(GCRY_MD_SHA512.rawValue), UInt32(flags))
        guard opened == 0, let handle else {
            fatalError("libgcrypt cannot open HMAC-SHA512: \(KeystoreCrypto.describe(opened))")
        }
        defer { gcry_md_close(handle) }
        let keyed = gcry_md_setkey(handle, key.baseAddress, key.count)
        precondition(keyed == 0, "libgcrypt refused an HMAC key")
        gcry_md_write(handle, data.baseAddress, data.count)
        return SecureBytes(count: 64) { (out: UnsafeMutableRawBufferPointer) in
            guard let digest = gcry_md_read(handle, 0) else { fatalError("libgcrypt returned no HMAC") }
            out.copyMemory(from: UnsafeRawBufferPointer(start: digest, count: 64))
        }
    }

    /// PBKDF2-HMAC-SHA512 with `iterations` rounds, 64 bytes out (the BIP-39 seed).
    static func pbkdf2SHA512(password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, iterations: Int)
        -> SecureBytes
    {
        KeystoreCrypto.ensureInitialized()
        return SecureBytes(count: 64) { (out: UnsafeMutableRawBufferPointer) in
            let status = gcry_kdf_derive(
                password.baseAddress, password.count, Int32(GCRY_KDF_PBKDF2.rawValue),
                Int32(GCRY_MD_SHA512.rawValue), salt.baseAddress, salt.count, UInt(iterations), out.count,
                out.baseAddress)
            precondition(status == 0, "PBKDF2-HMAC-SHA512 failed: \(KeystoreCrypto.describe(status))")
        }
    }
}
