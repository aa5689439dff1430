import EthereumPrimitives
import Foundation
import Secp256k1
import Testing

@testable import SoftwareSigner

/// Creating keystores and reading them back; wrong passwords and tampering.
@Suite struct KeystoreRoundTripTests {
    /// Cheap parameters so the suite stays fast.
    static let cheapScrypt: KeystoreKDF = .scrypt(n: 1024, r: 8, p: 1)

    @Test(arguments: [
        KeystoreRoundTripTests.cheapScrypt,
        KeystoreKDF.scrypt(n: 2048, r: 1, p: 2),
        KeystoreKDF.pbkdf2(iterations: 1000),
    ])
    func roundTrip(kdf: KeystoreKDF) throws {
        let key = PrivateKey.generate()
        var password = TestSupport.password("correct horse battery staple")
        let keystore = try Web3Keystore.encrypt(key, password: &password, kdf: kdf)
        #expect(password.allSatisfy { $0 == 0 }, "encrypt wipes the password array")
        #expect(keystore.kdf == kdf)

        let json = keystore.json
        let reparsed = try Web3Keystore(json: json)
        #expect(reparsed == keystore)
        var again = TestSupport.password("correct horse battery staple")
        let decrypted = try reparsed.decrypt(password: &again)
        #expect(again.allSatisfy { $0 == 0 }, "decrypt wipes the password array")
        #expect(decrypted.address == key.address)
        let digest = Keccak256.hash(utf8: "round trip")
        #expect(decrypted.sign(prehash: digest) == key.sign(prehash: digest))
    }

    @Test func layoutMatchesGeth() throws {
        let key = PrivateKey.generate()
        var password = TestSupport.password("pw")
        let keystore = try Web3Keystore.encrypt(key, password: &password, kdf: Self.cheapScrypt)
        let value = try JSONValue(parsing: keystore.json)
        guard case .object(let root) = value else { Issue.record("not an object"); return }
        #expect(root.keys == ["address", "crypto", "id", "version"])
        #expect(value["version"] == .number("3"))
        // address: lower-case hex without 0x, as geth writes it.
        #expect(value.string(at: "address") == String(key.address.lowercased.dropFirst(2)))
        #expect(
            value["crypto"]?.objectValue?.keys == ["cipher", "ciphertext", "cipherparams", "kdf", "kdfparams", "mac"])
        #expect(value.string(at: "crypto.cipher") == "aes-128-ctr")
        #expect(value.string(at: "crypto.kdf") == "scrypt")
        #expect(value["crypto"]?["kdfparams"]?.objectValue?.keys == ["dklen", "n", "p", "r", "salt"])
        #expect(value["crypto"]?["kdfparams"]?["n"] == .number("1024"))
        #expect(value["crypto"]?["kdfparams"]?["dklen"] == .number("32"))
        #expect(value.string(at: "crypto.kdfparams.salt")?.count == 64)
        #expect(value.string(at: "crypto.cipherparams.iv")?.count == 32)
        #expect(value.string(at: "crypto.ciphertext")?.count == 64)
        #expect(value.string(at: "crypto.mac")?.count == 64)
        // UUID version 4, RFC 4122 variant, lower case.
        let id = try #require(value.string(at: "id"))
        let uuid = try #require(UUID(uuidString: id))
        #expect(uuid.uuidString.lowercased() == id)
        let parts = id.split(separator: "-")
        #expect(parts.map(\.count) == [8, 4, 4, 4, 12])
        #expect(parts[2].first == "4")
        #expect(["8", "9", "a", "b"].contains(parts[3].first))

        let pbkdf2 = try Web3Keystore.encrypt(key, password: &password, kdf: .pbkdf2(iterations: 10))
        let pbkdf2Value = try JSONValue(parsing: pbkdf2.json)
        #expect(pbkdf2Value["crypto"]?["kdfparams"]?.objectValue?.keys == ["c", "dklen", "prf", "salt"])
        #expect(pbkdf2Value.string(at: "crypto.kdfparams.prf") == "hmac-sha256")
    }

    @Test func freshSaltIVAndIdEachTime() throws {
        let key = PrivateKey.generate()
        var first = TestSupport.password("same")
        var second = TestSupport.password("same")
        let a = try Web3Keystore.encrypt(key, password: &first, kdf: Self.cheapScrypt)
        let b = try Web3Keystore.encrypt(key, password: &second, kdf: Self.cheapScrypt)
        #expect(a.salt != b.salt)
        #expect(a.iv != b.iv)
        #expect(a.id != b.id)
        #expect(a.ciphertext != b.ciphertext)
        #expect(a.salt.count == 32 && a.iv.count == 16)
    }

    @Test func emptyPasswordWorks() throws {
        let key = PrivateKey.generate()
        var empty: [UInt8] = []
        let keystore = try Web3Keystore.encrypt(key, password: &empty, kdf: Self.cheapScrypt)
        var again: [UInt8] = []
        #expect(try keystore.decrypt(password: &again).address == key.address)
        var wrong = TestSupport.password(" ")
        #expect(throws: KeystoreError.wrongPassword) { try keystore.decrypt(password: &wrong) }
    }

    @Test func secureBytesPasswordIsOnlyRead() throws {
        let key = PrivateKey.generate()
        var bytes = TestSupport.password("kept")
        let password = SecureBytes(wiping: &bytes)
        let keystore = try Web3Keystore.encrypt(key, password: password, kdf: Self.cheapScrypt)
        #expect(try keystore.decrypt(password: password).address == key.address)
        #expect(password.withUnsafeBytes { Array($0) } == Array("kept".utf8))
    }

    @Test func wrongPassword() throws {
        let keystore = try Web3Keystore(json: TestSupport.fixture("independent-scrypt-r8.json"))
        var password = TestSupport.password("not the password")
        #expect(throws: KeystoreError.wrongPassword) { try keystore.decrypt(password: &password) }
        #expect(password.allSatisfy { $0 == 0 }, "the password array is wiped on failure too")
    }

    /// Any change to what the MAC covers, to the MAC itself or to the KDF inputs is a MAC
    /// mismatch; nothing is decrypted.
    @Test(arguments: [
        "crypto.ciphertext", "crypto.mac", "crypto.kdfparams.salt",
    ])
    func tamperingIsDetected(field: String) throws {
        let value = try TestSupport.fixtureJSON("independent-scrypt-r8.json")
        let original = try #require(value.string(at: field))
        let flipped = String(original.dropLast()) + (original.hasSuffix("0") ? "1" : "0")
        let keystore = try Web3Keystore(value: value.setting(field, to: .string(flipped)))
        var password = TestSupport.password(TestSupport.independentPassword)
        #expect(throws: KeystoreError.wrongPassword) { try keystore.decrypt(password: &password) }
    }

    /// A changed IV is not covered by the MAC: it decrypts to another key, which the `address`
    /// field then catches.
    @Test func tamperedIVCaughtByAddress() throws {
        let value = try TestSupport.fixtureJSON("independent-scrypt-r8.json")
        let keystore = try Web3Keystore(
            value: value.setting("crypto.cipherparams.iv", to: .string("00000000000000000000000000000000")))
        var password = TestSupport.password(TestSupport.independentPassword)
        #expect {
            try keystore.decrypt(password: &password)
        } throws: { error in
            guard case KeystoreError.addressMismatch(let stored, _) = error else { return false }
            return stored.lowercased == TestSupport.independentAddress
        }
    }

    @Test func addressMismatch() throws {
        let value = try TestSupport.fixtureJSON("independent-scrypt-r8.json")
            .setting("address", to: .string("008aeeda4d805471df9b2a5b0f38a0c3bcba786b"))
        let keystore = try Web3Keystore(value: value)
        var password = TestSupport.password(TestSupport.independentPassword)
        let expected = KeystoreError.addressMismatch(
            stored: try Address(TestSupport.vectorAddress), derived: try Address(TestSupport.independentAddress))
        #expect(throws: expected) { try keystore.decrypt(password: &password) }
    }

    @Test func derivedKeysLiveInSecureMemory() throws {
        var bytes = TestSupport.password("pw")
        let password = SecureBytes(wiping: &bytes)
        let derived = try KeystoreCrypto.deriveKey(
            password: password, kdf: .pbkdf2(iterations: 1), salt: [1], length: 32)
        #expect(String(describing: derived) == "SecureBytes(32 bytes, redacted)")
        #expect(derived.withUnsafeBytes { $0.contains { $0 != 0 } })
        derived.wipe()
        #expect(derived.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
    }

    @Test func encryptRejectsUnusableParameters() throws {
        let key = PrivateKey.generate()
        var password = TestSupport.password("pw")
        #expect(throws: KeystoreError.invalidField(field: "crypto.kdfparams.n", reason: "must be a power of two")) {
            try Web3Keystore.encrypt(key, password: &password, kdf: .scrypt(n: 1000, r: 8, p: 1))
        }
        #expect(password.allSatisfy { $0 == 0 })
        var other = TestSupport.password("pw")
        #expect {
            try Web3Keystore.encrypt(key, password: &other, kdf: .scrypt(n: 1024, r: 4, p: 1))
        } throws: { ($0 as? KeystoreError)?.field == "crypto.kdfparams.r" }
        var third = TestSupport.password("pw")
        #expect(throws: KeystoreError.invalidField(field: "crypto.kdfparams.c", reason: "must be at least 1")) {
            try Web3Keystore.encrypt(key, password: &third, kdf: .pbkdf2(iterations: 0))
        }
    }
}
