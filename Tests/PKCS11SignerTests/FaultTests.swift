import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import Testing

@testable import PKCS11Signer

extension TokenTests {
    @Suite("PKCS#11 faults surface as typed errors")
    struct FaultTests {
        @Test("a wrong PIN is reported once (CKR_PIN_INCORRECT) and the PIN buffer is wiped")
        func wrongPIN() async throws {
            let module = try await TestHSM.fixture().module
            let token = try module.token(.label(TestHSM.Label.login))
            #expect(try token.isLoggedIn == false)
            var wrong = Array("not-the-pin".utf8)
            let buffer = SecureBytes(wiping: &wrong)
            let error = try #require(throws: PKCS11Error.self) { try token.login(pin: .secure(buffer)) }
            #expect(error == .call(function: "C_Login", code: .pinIncorrect))
            #expect(error.description == "C_Login: CKR_PIN_INCORRECT")
            #expect(!error.description.contains("not-the-pin"))
            #expect(buffer.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
            #expect(try token.isLoggedIn == false)
            if case .backendFailure(let text) = error.signerError {
                #expect(text.contains("CKR_PIN_INCORRECT"))
            } else {
                Issue.record("expected backendFailure, got \(error.signerError)")
            }

            // Keys are invisible without login, and signing needs it.
            #expect(try token.listKeys().isEmpty)

            // The caller (not the library) may try again, here with the right PIN from a file.
            try await token.login(pin: .file(path: TestHSM.fixture().pinFile.path))
            #expect(try token.isLoggedIn)
        }

        @Test("PIN sources: file, environment variable and their failures")
        func pinSources() async throws {
            let fixture = try await TestHSM.fixture()
            func text(_ bytes: SecureBytes?) -> String? {
                bytes.map { b in b.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
            }
            #expect(text(try PINSource.file(path: fixture.pinFile.path).read()) == TestHSM.pin)
            #expect(text(try PINSource.environment(name: TestHSM.pinVariable).read()) == TestHSM.pin)
            #expect(try PINSource.protectedAuthenticationPath.read() == nil)

            let crlf = fixture.directory.appendingPathComponent("crlf-\(UUID().uuidString).pin")
            try Data("1234\r\nsecond line\n".utf8).write(to: crlf)
            #expect(text(try PINSource.file(path: crlf.path).read()) == "1234")

            let empty = fixture.directory.appendingPathComponent("empty-\(UUID().uuidString).pin")
            try Data("\n".utf8).write(to: empty)
            #expect(throws: PKCS11Error.pinUnavailable("PIN file \(empty.path) holds no PIN")) {
                try PINSource.file(path: empty.path).read()
            }
            let long = fixture.directory.appendingPathComponent("long-\(UUID().uuidString).pin")
            try Data(String(repeating: "9", count: 400).utf8).write(to: long)
            #expect(throws: PKCS11Error.self) { try PINSource.file(path: long.path).read() }

            let missing = fixture.directory.appendingPathComponent("missing.pin").path
            let error = try #require(throws: PKCS11Error.self) { try PINSource.file(path: missing).read() }
            #expect(error.description == "PIN unavailable: cannot open PIN file \(missing): No such file or directory")
            #expect(throws: PKCS11Error.pinUnavailable("environment variable SIGNERKIT_TEST_PKCS11_UNSET is not set")) {
                try PINSource.environment(name: "SIGNERKIT_TEST_PKCS11_UNSET").read()
            }
            #expect(PINSource.environment().description == "environment variable SIGNERKIT_PIN")
        }

        @Test("an unknown key is not found")
        func missingKey() async throws {
            let token = try await TestHSM.mainToken()
            #expect(throws: PKCS11Error.keyNotFound("label \"no-such-key\"")) {
                try token.signer(for: .label("no-such-key"))
            }
            #expect(throws: PKCS11Error.keyNotFound("id 0xdeadbeef")) {
                try token.signer(for: .id([0xDE, 0xAD, 0xBE, 0xEF]))
            }
            let address = try Address("0x0000000000000000000000000000000000000001")
            #expect(throws: PKCS11Error.keyNotFound("address \(address.checksummed)")) {
                try token.signer(for: .address(address))
            }
            #expect(
                PKCS11Error.keyNotFound("label \"x\"").description == "no private key with label \"x\" on the token")
        }

        @Test("a P-256 key on the token is refused: secp256k1 is required")
        func p256Key() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("p256")
            let info = try token.generateKeyPair(label: label, id: nil, ecParameters: p256Parameters)
            #expect(info.curve == "P-256 (prime256v1)")
            #expect(!info.isSecp256k1)
            #expect(info.address == nil)

            let error = try #require(throws: PKCS11Error.self) { try token.signer(for: .label(label)) }
            #expect(error == .notSecp256k1(key: "\"\(label)\" (id \(info.idHex))", curve: "P-256 (prime256v1)"))
            #expect(error.description.contains("secp256k1 is required"))
            #expect(error.description.contains("is not secp256k1"))
            #expect(try token.listKeys().contains { $0.label == label && $0.address == nil })
        }

        @Test("unknown token labels and uninitialised tokens")
        func tokens() async throws {
            let module = try await TestHSM.fixture().module
            #expect(throws: PKCS11Error.tokenNotFound("label \"no-such-token\"")) {
                try module.token(.label("no-such-token"))
            }
            #expect(throws: PKCS11Error.tokenNotFound("serial number \"0000\"")) {
                try module.token(.serialNumber("0000"))
            }

            let slots = try module.slots()
            let labels = slots.compactMap { $0.token?.label }
            #expect(labels.contains(TestHSM.Label.main))
            // SoftHSM2 always offers one uninitialised token.
            let free = try #require(slots.first { $0.token?.isInitialized == false })
            #expect(free.token?.label == "")
            let error = try #require(throws: PKCS11Error.self) { try module.token(.slot(free.slotID)) }
            #expect(error == .call(function: "C_OpenSession", code: .tokenNotRecognized))
            #expect(error.description == "C_OpenSession: CKR_TOKEN_NOT_RECOGNIZED")

            let main = try module.token(.label(TestHSM.Label.main))
            let bySerial = try module.token(.serialNumber(main.serialNumber))
            #expect(bySerial.slotID == main.slotID)
            let info = try module.info()
            #expect(info.manufacturer.contains("SoftHSM"))
        }

        @Test("a module path that does not exist")
        func badModulePath() {
            let path = "/nonexistent/libno-such-pkcs11.so"
            let error = #expect(throws: PKCS11Error.self) { try PKCS11Module.load(path: path) }
            guard case .moduleLoadFailed(let failedPath, let reason)? = error else {
                Issue.record("expected moduleLoadFailed, got \(String(describing: error))")
                return
            }
            #expect(failedPath == path)
            #expect(reason.contains("No such file"))
            #expect(error?.description.hasPrefix("cannot load PKCS#11 module \(path): ") == true)
        }

        @Test(
            "a shared library that is not a PKCS#11 module",
            arguments: [
                "/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libc.so.6",
            ])
        func notAModule(path: String) throws {
            try #require(FileManager.default.fileExists(atPath: path))
            #expect(throws: PKCS11Error.notAPKCS11Module(path: path)) { try PKCS11Module.load(path: path) }
        }

        @Test("the same module path gives the same initialised module")
        func moduleIsShared() async throws {
            let module = try await TestHSM.fixture().module
            let again = try PKCS11Module.load(path: TestHSM.modulePath)
            #expect(module === again)
            #expect(module.initializedHere)
        }

        @Test("removing the token's storage while a signer is open fails with a typed error, not a crash")
        func tokenDirectoryRemoved() async throws {
            let fixture = try await TestHSM.fixture()
            let token = try fixture.module.token(.label(TestHSM.Label.doomed))
            try token.login(pin: .environment(name: TestHSM.pinVariable))
            let label = TestHSM.uniqueLabel("doomed")
            _ = try token.generateKeyPair(label: label)
            let signer = try token.signer(for: .label(label), maximumSessions: 2)
            let message = digest("before removal")
            let signature = try await signer.sign(prehash: message)
            #expect(try ECDSA.recoverAddress(prehash: message, signature: signature) == signer.address)

            try FileManager.default.removeItem(at: fixture.doomedTokenDirectory)

            let error = try await #require(throws: PKCS11Error.self) {
                try await signer.signReportingPKCS11Error(prehash: digest("after removal"))
            }
            print("PKCS11KeySigner after token storage removal: \(error)")
            await #expect(throws: SignerError.self) { try await signer.sign(prehash: digest("after removal, again")) }
            // Listing either fails or, as SoftHSM2 does, finds the storage empty.
            let remaining = try? token.listKeys()
            #expect(remaining?.contains { $0.label == label } != true)
        }
    }
}

@Suite("PKCS#11 return codes and encodings")
struct CodeTests {
    @Test("every CKR_ constant in pkcs11.h has its name")
    func returnCodeTable() async throws {
        let header = try String(contentsOfFile: "/usr/include/p11-kit-1/p11-kit/pkcs11.h", encoding: .utf8)
        var checked = 0
        for line in header.split(separator: "\n") where line.hasPrefix("#define CKR_") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 3 else { continue }
            let name = String(parts[1])
            var literal = parts[2].trimmingCharacters(in: CharacterSet(charactersIn: "()"))
            guard literal.hasSuffix("UL") else { continue }  // CKR_VENDOR_DEFINED is a cast expression
            literal.removeLast(2)
            let value = literal.hasPrefix("0x") ? UInt(literal.dropFirst(2), radix: 16) : UInt(literal)
            let code = PKCS11ReturnCode(rawValue: try #require(value, "\(line)"))
            #expect(code.name == name)
            checked += 1
        }
        #expect(checked > 80)
        #expect(PKCS11ReturnCode(rawValue: 0x8000_0000).name == "CKR_VENDOR_DEFINED")
        #expect(PKCS11ReturnCode(rawValue: 0x8000_0005).name == "CKR_VENDOR_DEFINED+0x5")
        #expect(PKCS11ReturnCode(rawValue: 0x4).name == "CKR_0x4")
        #expect(PKCS11ReturnCode(rawValue: 0x1B8).name == "CKR_PIN_TOO_WEAK")
        #expect(PKCS11ReturnCode(rawValue: 0x208).name == "CKR_TOKEN_NOT_INITIALIZED")
        #expect(PKCS11Error.call(function: "C_Sign", code: .deviceRemoved).description == "C_Sign: CKR_DEVICE_REMOVED")
    }

    @Test("CKA_EC_POINT is accepted DER-wrapped and raw; CKA_EC_PARAMS is named")
    func ecEncoding() async throws {
        let key = PrivateKey.generate().publicKey
        let wrapped = ECEncoding.wrapPoint(key)
        #expect(wrapped.count == 67)
        #expect(Array(wrapped.prefix(3)) == [0x04, 0x41, 0x04])
        #expect(ECEncoding.parsePoint(wrapped) == key)
        #expect(ECEncoding.parsePoint(key.uncompressed) == key)
        #expect(ECEncoding.parsePoint([0x04, 0x21] + key.compressed) == key)
        #expect(ECEncoding.parsePoint([0x04, 0x81, 0x41] + key.uncompressed) == key)
        #expect(ECEncoding.parsePoint(key.rawRepresentation) == nil)
        #expect(ECEncoding.parsePoint([0x04, 0x41] + [UInt8](repeating: 7, count: 65)) == nil)
        #expect(ECEncoding.parsePoint([]) == nil)

        #expect(ECEncoding.curveName(ECEncoding.secp256k1Parameters) == "secp256k1")
        #expect(ECEncoding.curveName(p256Parameters) == "P-256 (prime256v1)")
        #expect(ECEncoding.curveName([0x06, 0x03, 0x2B, 0x65, 0x70]) == "OID 1.3.101.112")
        #expect(ECEncoding.curveName(nil) == "unknown (no CKA_EC_PARAMS)")
        #expect(ECEncoding.oidString(ECEncoding.secp256k1Parameters) == "1.3.132.0.10")
        #expect(ECEncoding.oidString(p256Parameters) == "1.2.840.10045.3.1.7")
    }

    @Test("PIN sources never print the PIN")
    func redaction() {
        var bytes = Array("123456".utf8)
        let source = PINSource.secure(SecureBytes(wiping: &bytes))
        #expect(source.description == "secure buffer")
        #expect(!"\(source)".contains("123456"))
    }
}
