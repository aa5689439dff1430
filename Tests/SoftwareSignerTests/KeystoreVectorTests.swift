import EthereumPrimitives
import Foundation
import Secp256k1
import Testing

@testable import SoftwareSigner

/// The published Web3 Secret Storage test vectors, an independently generated r = 8 keystore,
/// and the RFC 7914 KDF vectors that pin down libgcrypt's scrypt parameter mapping.
@Suite struct KeystoreVectorTests {
    /// Decrypts a fixture once, prints how long it took and checks the key.
    private func decryptVector(_ name: String, expectedKDF: KeystoreKDF) throws {
        let keystore = try Web3Keystore(json: TestSupport.fixture(name))
        #expect(keystore.kdf == expectedKDF)
        #expect(keystore.id == "3198bc9c-6672-5ab3-d995-4942343ae5b6")
        #expect(keystore.address == nil)
        var password = TestSupport.password(TestSupport.vectorPassword)
        let clock = ContinuousClock()
        let start = clock.now
        let key = try keystore.decrypt(password: &password)
        let elapsed = clock.now - start
        print("\(name): \(keystore.kdf) decrypted in \(elapsed)")
        #expect(password.allSatisfy { $0 == 0 }, "the password array is wiped")
        #expect(key.address.checksummed == TestSupport.vectorAddress)
        #expect(key.address == (try PrivateKey(hex: TestSupport.vectorKeyHex)).address)
        #expect(
            key.sign(prehash: Keccak256.hash(utf8: "x"))
                == (try PrivateKey(hex: TestSupport.vectorKeyHex)).sign(prehash: Keccak256.hash(utf8: "x")))
    }

    @Test func publishedPBKDF2Vector() throws {
        try decryptVector("wss-v3-pbkdf2-sha256.json", expectedKDF: .pbkdf2(iterations: 262_144))
    }

    @Test func publishedScryptVector() throws {
        try decryptVector("wss-v3-scrypt.json", expectedKDF: .scrypt(n: 262_144, r: 1, p: 8))
    }

    /// scrypt r = 8 (the block size every wallet writes) against a keystore produced outside
    /// libgcrypt (OpenSSL scrypt, pyca AES-CTR, pycryptodome Keccak), with an `address` field
    /// and a non-ASCII password.
    @Test func independentScryptR8Keystore() throws {
        let keystore = try Web3Keystore(json: TestSupport.fixture("independent-scrypt-r8.json"))
        #expect(keystore.kdf == .light)
        #expect(keystore.address == (try Address(TestSupport.independentAddress)))
        var password = TestSupport.password(TestSupport.independentPassword)
        let key = try keystore.decrypt(password: &password)
        #expect(key.address == (try PrivateKey(hex: TestSupport.independentKeyHex)).address)
    }

    /// RFC 7914 §12 scrypt vectors through the internal derivation: r = 1 (libgcrypt algo 41)
    /// and r = 8 (`GCRY_KDF_SCRYPT`) with N as subalgo and p as iterations.
    @Test(arguments: [
        (
            "", "", 16, 1, 1,
            "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
        ),
        (
            "password", "NaCl", 1024, 8, 16,
            "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        ),
    ])
    func rfc7914Scrypt(password: String, salt: String, n: Int, r: Int, p: Int, expected: String) throws {
        try checkDerivation(password: password, salt: salt, kdf: .scrypt(n: n, r: r, p: p), expected: expected)
    }

    /// RFC 7914 §11 PBKDF2-HMAC-SHA-256 vector.
    @Test func rfc7914PBKDF2() throws {
        try checkDerivation(
            password: "passwd", salt: "salt", kdf: .pbkdf2(iterations: 1),
            expected: "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }

    private func checkDerivation(password: String, salt: String, kdf: KeystoreKDF, expected: String) throws {
        var bytes = Array(password.utf8)
        let secure = SecureBytes(wiping: &bytes)
        let derived = try KeystoreCrypto.deriveKey(password: secure, kdf: kdf, salt: Array(salt.utf8), length: 64)
        #expect(derived.withUnsafeBytes { Hex.encode($0, prefix: false) } == expected)
    }
}
