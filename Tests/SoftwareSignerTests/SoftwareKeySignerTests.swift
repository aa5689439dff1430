import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Creating signers from every source, signing through the protocol, and redaction.
@Suite struct SoftwareKeySignerTests {
    static let keyHex = TestSupport.vectorKeyHex
    static let bareKeyHex = String(TestSupport.vectorKeyHex.dropFirst(2))

    @Test(arguments: [
        SoftwareKeySignerTests.keyHex,
        SoftwareKeySignerTests.bareKeyHex,
        SoftwareKeySignerTests.keyHex.uppercased(),
        "  " + SoftwareKeySignerTests.keyHex + "\r\n",
        SoftwareKeySignerTests.bareKeyHex + "\n",
    ])
    func fromHex(_ text: String) throws {
        #expect(try SoftwareKeySigner(hex: text).address.checksummed == TestSupport.vectorAddress)
    }

    @Test(arguments: [
        ("", KeyError.invalidHex),
        ("0x", .invalidHex),
        (String(SoftwareKeySignerTests.keyHex.dropLast()), .invalidHex),
        (SoftwareKeySignerTests.keyHex + "00", .invalidHex),
        (String(SoftwareKeySignerTests.keyHex.dropLast()) + "g", .invalidHex),
        ("0x" + String(repeating: "0", count: 64), .outOfRange),
        ("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", .outOfRange),
    ])
    func invalidHex(_ text: String, reason: KeyError) {
        #expect(throws: SoftwareKeyError.invalidKey(source: .text, reason: reason)) { try SoftwareKeySigner(hex: text) }
    }

    @Test func fromKeyFileWithTrailingNewline() throws {
        let path = try TestSupport.temporaryFile(Self.keyHex + "\n", name: "key.hex")
        defer { TestSupport.remove(path) }
        #expect(try SoftwareKeySigner(keyFile: path).address.checksummed == TestSupport.vectorAddress)
    }

    @Test func keyFileErrorsNameThePathNotTheKey() throws {
        let nearlyKey = String(Self.keyHex.dropLast()) + "z"
        let path = try TestSupport.temporaryFile(nearlyKey + "\n", name: "bad.hex")
        defer { TestSupport.remove(path) }
        #expect(throws: SoftwareKeyError.invalidKey(source: .file(path: path), reason: .invalidHex)) {
            try SoftwareKeySigner(keyFile: path)
        }
        do {
            _ = try SoftwareKeySigner(keyFile: path)
        } catch {
            #expect(error.description.contains(path))
            #expect(containsNone(of: [String(Self.bareKeyHex.prefix(40))], in: error.description))
            #expect(containsNone(of: [String(Self.bareKeyHex.prefix(40))], in: String(reflecting: error)))
        }

        let missing = path + ".missing"
        #expect(throws: SoftwareKeyError.unreadableFile(path: missing, reason: "No such file or directory")) {
            try SoftwareKeySigner(keyFile: missing)
        }
        let big = try TestSupport.temporaryFile(Self.keyHex + String(repeating: " ", count: 5000), name: "big.hex")
        defer { TestSupport.remove(big) }
        #expect(throws: SoftwareKeyError.invalidKey(source: .file(path: big), reason: .invalidHex)) {
            try SoftwareKeySigner(keyFile: big)
        }
    }

    @Test func fromEnvironmentVariable() throws {
        let name = "SIGNERKIT_TEST_KEY_\(UUID().uuidString.replacingOccurrences(of: "-", with: "_"))"
        #expect(throws: SoftwareKeyError.environmentVariableNotSet(name: name)) {
            try SoftwareKeySigner(environmentVariable: name)
        }
        ChildProcess.setEnvironment(name, Self.bareKeyHex + "\n")
        defer { ChildProcess.setEnvironment(name, nil) }
        #expect(try SoftwareKeySigner(environmentVariable: name).address.checksummed == TestSupport.vectorAddress)

        ChildProcess.setEnvironment(name, "0x1234")
        #expect(throws: SoftwareKeyError.invalidKey(source: .environmentVariable(name: name), reason: .invalidHex)) {
            try SoftwareKeySigner(environmentVariable: name)
        }
        let error = SoftwareKeyError.invalidKey(source: .environmentVariable(name: name), reason: .invalidHex)
        #expect(
            error.description
                == "invalid private key in environment variable \(name): must be 64 hex digits, optionally 0x-prefixed")
        #expect(SoftwareKeySigner.defaultEnvironmentVariable == "SIGNERKIT_PRIVATE_KEY")
    }

    @Test func fromKeystoreTextAndFile() throws {
        let json = try TestSupport.fixture("independent-scrypt-r8.json")
        var password = TestSupport.password(TestSupport.independentPassword)
        let fromText = try SoftwareKeySigner(keystoreJSON: json, password: &password)
        #expect(password.allSatisfy { $0 == 0 })
        #expect(fromText.address.lowercased == TestSupport.independentAddress)

        let path = try TestSupport.fixtureURL("independent-scrypt-r8.json").path
        var again = TestSupport.password(TestSupport.independentPassword)
        #expect(try SoftwareKeySigner(keystoreFile: path, password: &again).address == fromText.address)

        var wrong = TestSupport.password("hunter2")
        #expect(throws: SoftwareKeyError.keystore(source: .keystoreFile(path: path), reason: .wrongPassword)) {
            try SoftwareKeySigner(keystoreFile: path, password: &wrong)
        }
        var wrongAgain = TestSupport.password("hunter2")
        do {
            _ = try SoftwareKeySigner(keystoreJSON: json, password: &wrongAgain)
            Issue.record("a wrong password must fail")
        } catch {
            #expect(error == .keystore(source: .keystoreText, reason: .wrongPassword))
            #expect(error.description == "keystore JSON: wrong password: keystore MAC mismatch")
            #expect(containsNone(of: ["hunter2"], in: error.description + String(reflecting: error)))
        }
        var password3 = TestSupport.password("x")
        #expect(
            throws: SoftwareKeyError.unreadableFile(
                path: "/nonexistent/keystore.json", reason: "No such file or directory")
        ) {
            try SoftwareKeySigner(keystoreFile: "/nonexistent/keystore.json", password: &password3)
        }
    }

    @Test func keystoreExportRoundTrip() throws {
        let signer = SoftwareKeySigner.generate()
        var password = TestSupport.password("export")
        let keystore = try signer.keystore(password: &password, kdf: .scrypt(n: 1024, r: 8, p: 1))
        let path = try TestSupport.temporaryFile(keystore.json, name: "UTC--keystore.json")
        defer { TestSupport.remove(path) }
        var again = TestSupport.password("export")
        #expect(try SoftwareKeySigner(keystoreFile: path, password: &again).address == signer.address)
    }

    @Test func generatedKeysDiffer() {
        #expect(SoftwareKeySigner.generate().address != SoftwareKeySigner.generate().address)
    }

    /// Signing through the protocol gives exactly `PrivateKey.sign`, and the signature recovers
    /// to the signer's address.
    @Test func signsThroughTheProtocol() async throws {
        let key = try PrivateKey(hex: Self.keyHex)
        let signer: any PrehashSigner = SoftwareKeySigner(privateKey: key)
        #expect(signer.address == key.address)
        for message in ["", "hello", "SignerKit"] {
            let digest = Keccak256.hash(utf8: message)
            let signature = try await signer.sign(prehash: digest)
            #expect(signature == key.sign(prehash: digest))
            #expect(signature.isLowS)
            #expect(try ECDSA.recoverAddress(prehash: digest, signature: signature) == signer.address)
        }
    }

    @Test func concurrentSigning() async throws {
        let signer = try SoftwareKeySigner(hex: Self.keyHex)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<32 {
                group.addTask {
                    let digest = Keccak256.hash(utf8: "message \(i)")
                    let signature = try await signer.sign(prehash: digest)
                    return try ECDSA.recoverAddress(prehash: digest, signature: signature) == signer.address
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    @Test func descriptionsShowOnlyTheAddress() throws {
        let signer = try SoftwareKeySigner(hex: Self.keyHex)
        let secrets = [Self.bareKeyHex, String(Self.bareKeyHex.prefix(16)), String(Self.bareKeyHex.suffix(16))]
        #expect(signer.description == "SoftwareKeySigner(address: \(TestSupport.vectorAddress))")
        #expect(String(reflecting: signer) == signer.description)
        var dumped = ""
        dump(signer, to: &dumped)
        #expect(dumped.contains(TestSupport.vectorAddress))
        for text in [signer.description, String(reflecting: signer), dumped, "\(signer)", String(describing: [signer])]
        {
            #expect(containsNone(of: secrets, in: text))
        }
    }
}
