import EthereumPrimitives
import Secp256k1
import Testing

@testable import SoftwareSigner

/// Field-by-field validation when parsing (cheap: no key derivation runs).
@Suite struct KeystoreValidationTests {
    /// One malformed keystore: a fixture, the edit, and the field the error must name.
    struct Case: Sendable, CustomTestStringConvertible {
        let fixture: String
        let path: String
        let value: JSONValue?
        let field: String
        var unsupported = false
        var reason: String? = nil

        var testDescription: String { "\(path) = \(value.map(\.serialized) ?? "<removed>") → \(field)" }

        static func pbkdf2(_ path: String, _ value: JSONValue?, field: String? = nil, reason: String? = nil) -> Case {
            Case(fixture: "wss-v3-pbkdf2-sha256.json", path: path, value: value, field: field ?? path, reason: reason)
        }

        static func scrypt(_ path: String, _ value: JSONValue?, field: String? = nil, reason: String? = nil) -> Case {
            Case(fixture: "wss-v3-scrypt.json", path: path, value: value, field: field ?? path, reason: reason)
        }

        static func unsupported(_ fixture: String, _ path: String, _ value: JSONValue) -> Case {
            Case(fixture: fixture, path: path, value: value, field: path, unsupported: true)
        }
    }

    static let cases: [Case] = [
        .pbkdf2("version", nil, reason: "is missing"),
        .pbkdf2("version", .number("1"), reason: "must be 3, got 1"),
        .pbkdf2("version", .string("3"), reason: "must be a number, got string"),
        .pbkdf2("version", .number("3.0"), reason: "must be an integer"),
        .pbkdf2("id", .number("7"), reason: "must be a string, got number"),
        .pbkdf2("address", .string("1234"), reason: "must be 40 hex digits (20 bytes), got 4 characters"),
        .pbkdf2("address", .string("zz8aeeda4d805471df9b2a5b0f38a0c3bcba786b")),
        .pbkdf2("crypto", nil, reason: "is missing"),
        .pbkdf2("crypto", .string("x"), reason: "must be an object, got string"),
        .pbkdf2(
            "Crypto", .object(JSONObject()), field: "crypto", reason: "must appear once, found both crypto and Crypto"),
        .pbkdf2("crypto.cipher", nil, reason: "is missing"),
        .pbkdf2("crypto.cipher", .number("128")),
        .unsupported("wss-v3-pbkdf2-sha256.json", "crypto.cipher", .string("aes-128-cbc")),
        .pbkdf2("crypto.cipherparams", nil, reason: "is missing"),
        .pbkdf2("crypto.cipherparams.iv", nil, reason: "is missing"),
        .pbkdf2(
            "crypto.cipherparams.iv", .string("6087dab2f9fdbbfaddc31a909735c1"),
            reason: "must be 32 hex digits (16 bytes), got 30 characters"),
        .pbkdf2(
            "crypto.cipherparams.iv", .string("6087dab2f9fdbbfaddc31a909735c1eg"),
            reason: "must be 32 hex digits (16 bytes), found a non-hex character"),
        .pbkdf2("crypto.ciphertext", nil),
        .pbkdf2("crypto.ciphertext", .string("5318b4d5")),
        .pbkdf2("crypto.ciphertext", .array([])),
        .pbkdf2("crypto.kdf", nil),
        .unsupported("wss-v3-pbkdf2-sha256.json", "crypto.kdf", .string("argon2id")),
        .pbkdf2("crypto.kdfparams", nil),
        .pbkdf2("crypto.kdfparams", .array([])),
        .pbkdf2("crypto.kdfparams.c", nil, reason: "is missing"),
        .pbkdf2("crypto.kdfparams.c", .number("0"), reason: "must be at least 1"),
        .pbkdf2("crypto.kdfparams.c", .number("-5"), reason: "must not be negative"),
        .pbkdf2("crypto.kdfparams.c", .number("1e6"), reason: "must be an integer"),
        .pbkdf2("crypto.kdfparams.c", .number("4294967296"), reason: "must be at most 4294967295"),
        .pbkdf2("crypto.kdfparams.c", .number("99999999999999999999999"), reason: "is too large"),
        .pbkdf2("crypto.kdfparams.prf", nil),
        .unsupported("wss-v3-pbkdf2-sha256.json", "crypto.kdfparams.prf", .string("hmac-sha512")),
        .pbkdf2("crypto.kdfparams.dklen", nil),
        .pbkdf2("crypto.kdfparams.dklen", .number("16"), reason: "must be between 32 and 1024"),
        .pbkdf2("crypto.kdfparams.salt", nil),
        .pbkdf2("crypto.kdfparams.salt", .string(""), reason: "must be between 1 and 1024 bytes"),
        .pbkdf2("crypto.kdfparams.salt", .string("abc"), reason: "must be hex digits, got 3 characters"),
        .pbkdf2("crypto.mac", nil),
        .pbkdf2("crypto.mac", .string("517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9")),
        .scrypt("crypto.kdfparams.n", nil, reason: "is missing"),
        .scrypt("crypto.kdfparams.n", .number("1000"), reason: "must be a power of two"),
        .scrypt("crypto.kdfparams.n", .number("1"), reason: "must be at least 2"),
        .scrypt("crypto.kdfparams.n", .string("262144"), reason: "must be a number, got string"),
        .scrypt("crypto.kdfparams.n", .number("17179869184"), reason: "128 × r × n bytes must not exceed 1 GiB"),
        .scrypt("crypto.kdfparams.r", nil),
        .scrypt("crypto.kdfparams.r", .number("0"), reason: "must be at least 1"),
        .unsupported("wss-v3-scrypt.json", "crypto.kdfparams.r", .number("2")),
        .scrypt("crypto.kdfparams.p", .number("0"), reason: "must be at least 1"),
        .scrypt("crypto.kdfparams.p", .number("16777216"), reason: "128 × r × p bytes must not exceed 1 GiB"),
        .scrypt("crypto.kdfparams.dklen", .number("31")),
    ]

    @Test(arguments: cases)
    func malformedFieldIsNamed(_ testCase: Case) throws {
        let edited = try TestSupport.fixtureJSON(testCase.fixture).setting(testCase.path, to: testCase.value)
        #expect {
            try Web3Keystore(json: edited.serialized)
        } throws: { error in
            guard let error = error as? KeystoreError, error.field == testCase.field else { return false }
            switch error {
            case .unsupported: guard testCase.unsupported else { return false }
            case .invalidField(_, let reason):
                guard !testCase.unsupported else { return false }
                if let expected = testCase.reason, reason != expected { return false }
            default: return false
            }
            return error.description.hasPrefix("\(testCase.field): ")
        }
    }

    @Test("hostile KDF parameters are refused before any derivation, naming the parameter and the bound")
    func kdfWorkIsBounded() throws {
        func refusal(_ fixture: String, _ edits: [(String, String)]) throws -> KeystoreError? {
            var value = try TestSupport.fixtureJSON(fixture)
            for (path, number) in edits { value = value.setting(path, to: .number(number)) }
            do {
                _ = try Web3Keystore(json: value.serialized)
                return nil
            } catch {
                return error
            }
        }
        // PBKDF2: 10,000,000 iterations are the most accepted; 2^32 − 1 (the issue's probe) is refused.
        #expect(try refusal("wss-v3-pbkdf2-sha256.json", [("crypto.kdfparams.c", "10000000")]) == nil)
        for c in ["10000001", "4294967295"] {
            let error = try #require(try refusal("wss-v3-pbkdf2-sha256.json", [("crypto.kdfparams.c", c)]))
            guard case .excessiveWork(let field, let limit) = error else {
                Issue.record("expected excessiveWork, got \(error)")
                continue
            }
            #expect(field == "crypto.kdfparams.c")
            #expect(limit.contains("c = \(c)") && limit.contains("10000000"))
            #expect(error.description.hasPrefix("crypto.kdfparams.c: too much key-derivation work"))
        }
        // scrypt: 128·n·r·p bytes of work at most 2^32 (n = 2^20, r = 8, p = 4 is exactly 2^32).
        let exact = [("crypto.kdfparams.n", "1048576"), ("crypto.kdfparams.r", "8"), ("crypto.kdfparams.p", "4")]
        #expect(try refusal("wss-v3-scrypt.json", exact) == nil)
        let hostile: [[(String, String)]] = [
            [("crypto.kdfparams.n", "1048576"), ("crypto.kdfparams.r", "8"), ("crypto.kdfparams.p", "5")],
            [("crypto.kdfparams.n", "262144"), ("crypto.kdfparams.r", "8"), ("crypto.kdfparams.p", "1048576")],
            [("crypto.kdfparams.n", "8"), ("crypto.kdfparams.r", "1"), ("crypto.kdfparams.p", "8388608")],
        ]
        for edits in hostile {
            let error = try #require(try refusal("wss-v3-scrypt.json", edits))
            guard case .excessiveWork(let field, let limit) = error else {
                Issue.record("expected excessiveWork for \(edits), got \(error)")
                continue
            }
            #expect(field == "crypto.kdfparams.n")
            #expect(limit.contains("128·n·r·p") && limit.contains("2^32"), "\(limit)")
        }
        #expect(KeystoreKDF.scryptWork(n: 1 << 20, r: 8, p: 4) == KeystoreKDF.maximumScryptWork)
        #expect(KeystoreKDF.scryptWork(n: Int.max, r: 8, p: 1) == nil)
        // The library refuses them when encrypting too.
        let key = try PrivateKey(hex: TestSupport.vectorKeyHex)
        var password = Array("pw".utf8)
        #expect(throws: KeystoreError.self) {
            try Web3Keystore.encrypt(key, password: &password, kdf: .pbkdf2(iterations: 10_000_001))
        }
        #expect(throws: KeystoreError.self) {
            try Web3Keystore.encrypt(key, password: &password, kdf: .scrypt(n: 1 << 20, r: 8, p: 5))
        }
        // Nothing was derived: parsing takes no password, and deriving 2^32 − 1 PBKDF2 iterations or 2^32 · 5
        // bytes of scrypt work would not end (the test would hang, not pass); no wall-clock bound needed.
    }

    @Test func powerOfTwoMessage() throws {
        let edited = try TestSupport.fixtureJSON("wss-v3-scrypt.json").setting(
            "crypto.kdfparams.n", to: .number("1000"))
        #expect(throws: KeystoreError.invalidField(field: "crypto.kdfparams.n", reason: "must be a power of two")) {
            try Web3Keystore(json: edited.serialized)
        }
        let error = KeystoreError.invalidField(field: "crypto.kdfparams.n", reason: "must be a power of two")
        #expect(error.description == "crypto.kdfparams.n: must be a power of two")
    }

    @Test func notJSONOrNotAnObject() {
        #expect { try Web3Keystore(json: "{\"version\": 3,") } throws: { error in
            guard case KeystoreError.invalidJSON = error else { return false }
            return true
        }
        #expect(throws: KeystoreError.invalidField(field: "keystore", reason: "must be a JSON object, got array")) {
            try Web3Keystore(json: "[]")
        }
    }

    /// geth and others accept `Crypto` (capitalised) for the crypto member; so do we.
    @Test func capitalisedCryptoAccepted() throws {
        let value = try TestSupport.fixtureJSON("wss-v3-pbkdf2-sha256.json")
        let crypto = try #require(value["crypto"])
        let renamed = value.setting("crypto", to: nil).setting("Crypto", to: crypto)
        let keystore = try Web3Keystore(value: renamed)
        #expect(keystore == (try Web3Keystore(value: value)))
        #expect(keystore.kdf == .pbkdf2(iterations: 262_144))
    }

    @Test func prefixedHexAndExtraMembersAccepted() throws {
        let value = try TestSupport.fixtureJSON("wss-v3-pbkdf2-sha256.json")
        let edited =
            value
            .setting("crypto.mac", to: .string("0x517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2"))
            .setting("x-ethers", to: .object(JSONObject(["client": .string("ethers.js")])))
            .setting("address", to: .string("008AEEDA4D805471DF9B2A5B0F38A0C3BCBA786B"))
        let keystore = try Web3Keystore(value: edited)
        #expect(keystore.mac == (try Web3Keystore(value: value)).mac)
        #expect(keystore.address?.checksummed == TestSupport.vectorAddress)
    }

    @Test func parsedFields() throws {
        let keystore = try Web3Keystore(json: TestSupport.fixture("wss-v3-scrypt.json"))
        #expect(keystore.kdf == .scrypt(n: 262_144, r: 1, p: 8))
        #expect(keystore.derivedKeyLength == 32)
        #expect(
            Hex.encode(keystore.salt, prefix: false)
                == "ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19")
        #expect(Hex.encode(keystore.iv, prefix: false) == "83dbcc02d8ccb40e466191a123791e0e")
        #expect(
            Hex.encode(keystore.ciphertext, prefix: false)
                == "d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c")
        #expect(keystore.mac.hex == "0x2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097")
        #expect(String(describing: keystore) == "Web3Keystore(address: none, kdf: scrypt(n: 262144, r: 1, p: 8))")
        // Serialising and parsing again gives the same keystore.
        #expect(try Web3Keystore(json: keystore.json) == keystore)
    }
}
