import CPKCS11
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

@testable import PKCS11Signer

extension TokenTests {
    @Suite("PKCS#11 signing on a real SoftHSM2 token")
    struct SigningTests {
        /// Checks a signature the way a verifier would: low s, recovers to the address, and passes
        /// standard ECDSA verification.
        func expectValid(
            _ signature: RecoverableSignature, digest: Digest32, signer: PKCS11KeySigner,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            #expect(signature.isLowS, sourceLocation: sourceLocation)
            #expect(signature.recoveryId <= 1, sourceLocation: sourceLocation)
            #expect(
                try ECDSA.recoverAddress(prehash: digest, signature: signature) == signer.address,
                sourceLocation: sourceLocation)
            #expect(
                ECDSA.verify(prehash: digest, r: signature.r, s: signature.s, publicKey: signer.publicKey),
                sourceLocation: sourceLocation)
        }

        @Test("imported fixed key has the known address and signs low-s, recoverable signatures")
        func fixedKeyVector() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("vector")
            let key = try PrivateKey(hex: vectorKeyHex)
            let info = try token.importPrivateKey(key, label: label)
            #expect(info.address == (try Address(vectorAddress)))
            #expect(info.address?.checksummed == vectorAddress)
            #expect(info.isSecp256k1)
            #expect(info.curve == "secp256k1")
            #expect(info.id.count == 16)

            let signer = try token.signer(for: .label(label))
            #expect(signer.address.checksummed == vectorAddress)
            // HSM nonces are random (no RFC 6979), so signatures are checked, not byte-compared.
            // About half of the token's raw signatures are high-s: 24 rounds exercise both paths.
            var recoveryIds = Set<UInt8>()
            for round in 0..<24 {
                let message = digest("SignerKit PKCS#11 vector \(round)")
                let signature = try await signer.sign(prehash: message)
                try expectValid(signature, digest: message, signer: signer)
                recoveryIds.insert(signature.recoveryId)
                #expect(signature.vForMessages == 27 || signature.vForMessages == 28)
            }
            // Both recovery ids occur (all 24 alike has odds of 2^-23): the session thread's verdict
            // on id 0 and the caller's trial of id 1 both give signatures that check out.
            #expect(recoveryIds == [0, 1])

            // The same key in software gives a signature for the same address.
            let software = key.sign(prehash: digest("cross-check"))
            let hardware = try await signer.sign(prehash: digest("cross-check"))
            #expect(
                try ECDSA.recoverAddress(prehash: digest("cross-check"), signature: software)
                    == ECDSA.recoverAddress(prehash: digest("cross-check"), signature: hardware))
        }

        @Test("a key pair generated on the token signs and recovers")
        func generatedKey() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("generated")
            let id: [UInt8] = [0xC0, 0xFF, 0xEE] + Array(label.utf8.suffix(8))
            let info = try token.generateKeyPair(label: label, id: id)
            #expect(info.id == id)
            #expect(info.label == label)
            let address = try #require(info.address)

            let signer = try token.signer(for: .id(id))
            #expect(signer.address == address)
            let message = digest("generated on the token")
            let signature = try await signer.sign(prehash: message)
            try expectValid(signature, digest: message, signer: signer)

            // The same key found by address.
            let byAddress = try token.signer(for: .address(address))
            #expect(byAddress.key.id == id)
        }

        @Test("the private key is sensitive and cannot be read back")
        func keyNeverLeavesToken() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("sensitive")
            _ = try token.generateKeyPair(label: label)
            let value: [UInt8]? = try token.withAnchor(retry: false) { (session) throws(PKCS11Error) in
                let handle = try token.uniquePrivateKey(session: session, .label(label))
                return try token.module.attribute(session: session, object: handle, CK_ATTRIBUTE_TYPE(CKA_VALUE))
            }
            #expect(value == nil)
        }

        @Test("listing shows label, id and address of every key")
        func listKeys() async throws {
            let token = try await TestHSM.mainToken()
            let imported = TestHSM.uniqueLabel("list-imported")
            let generated = TestHSM.uniqueLabel("list-generated")
            let first = try token.importPrivateKey(
                PrivateKey.generate(), label: imported, id: [0x01, 0x02, 0x03, 0x04])
            let second = try token.generateKeyPair(label: generated)
            let keys = try token.listKeys()
            let listed = try #require(keys.first { $0.label == imported })
            #expect(listed.idHex == "0x01020304")
            #expect(listed.address == first.address)
            #expect(keys.first { $0.label == generated }?.address == second.address)
            #expect(listed.description.contains(try #require(first.address).checksummed))
        }

        @Test("a key label or id is never reused, and deleted keys are gone")
        func duplicatesAndDeletion() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("dup")
            let info = try token.generateKeyPair(label: label)
            #expect(throws: PKCS11Error.keyExists("label \"\(label)\"")) {
                try token.generateKeyPair(label: label)
            }
            #expect(throws: PKCS11Error.keyExists("id \(info.idHex)")) {
                try token.importPrivateKey(PrivateKey.generate(), label: label + "-other", id: info.id)
            }
            try token.deleteKey(.label(label))
            #expect(throws: PKCS11Error.keyNotFound("label \"\(label)\"")) { try token.key(.label(label)) }
            #expect(try token.listKeys().allSatisfy { $0.label != label })
        }

        @Test("200 digests signed concurrently through the session pool all recover")
        func concurrentSigning() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("concurrent")
            _ = try token.importPrivateKey(PrivateKey.generate(), label: label)
            let signer = try token.signer(for: .label(label))
            let digests = (0..<200).map { digest("concurrent \($0)") }
            _ = try await signer.sign(prehash: digests[0])  // warm up: one session open

            let clock = ContinuousClock()
            let sequentialStart = clock.now
            var sequentialSignatures: [RecoverableSignature] = []
            for message in digests { sequentialSignatures.append(try await signer.sign(prehash: message)) }
            let sequential = clock.now - sequentialStart
            for (message, signature) in zip(digests, sequentialSignatures) {
                try expectValid(signature, digest: message, signer: signer)
            }

            let concurrentStart = clock.now
            let signatures = try await withThrowingTaskGroup(of: (Int, RecoverableSignature).self) { group in
                for (index, message) in digests.enumerated() {
                    group.addTask { (index, try await signer.sign(prehash: message)) }
                }
                var results = [RecoverableSignature?](repeating: nil, count: digests.count)
                for try await (index, signature) in group { results[index] = signature }
                return results.compactMap { $0 }
            }
            let concurrent = clock.now - concurrentStart

            #expect(signatures.count == 200)
            for (message, signature) in zip(digests, signatures) {
                try expectValid(signature, digest: message, signer: signer)
            }
            #expect(signer.openSessions <= signer.maximumSessions)
            print(
                "PKCS11KeySigner timing (\(signer.maximumSessions) sessions): 200 sequential \(sequential), "
                    + "200 concurrent \(concurrent)")
        }

        @Test("a one-session pool serialises 40 concurrent signatures")
        func singleSessionPool() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("single")
            _ = try token.generateKeyPair(label: label)
            let signer = try token.signer(for: .label(label), maximumSessions: 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let message = digest("single \(index)")
                        let signature = try await signer.sign(prehash: message)
                        #expect(try ECDSA.recoverAddress(prehash: message, signature: signature) == signer.address)
                    }
                }
                try await group.waitForAll()
            }
            #expect(signer.openSessions == 1)
            #expect(throws: PKCS11Error.invalidArgument("a signer needs at least one session")) {
                try token.signer(for: .label(label), maximumSessions: 0)
            }
        }

        @Test("sessions closed behind the pool's back are reopened once")
        func reopensLostSessions() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("reopen")
            _ = try token.generateKeyPair(label: label)
            let signer = try token.signer(for: .label(label), maximumSessions: 2)
            let message = digest("before")
            _ = try await signer.sign(prehash: message)
            let closed = signer.loseIdleSessionsForTesting()
            #expect(closed >= 1)
            let after = digest("after")
            let signature = try await signer.sign(prehash: after)
            #expect(try ECDSA.recoverAddress(prehash: after, signature: signature) == signer.address)
        }

        @Test("the open convenience logs in and signs")
        func openConvenience() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("open")
            let info = try token.generateKeyPair(label: label)
            let signer = try PKCS11KeySigner.open(
                module: TestHSM.modulePath, token: .label(TestHSM.Label.main), key: .label(label),
                pin: .environment(name: TestHSM.pinVariable), maximumSessions: 2)
            #expect(signer.address == info.address)
            #expect(signer.description.contains(label))
            let message = digest("open")
            let signature = try await signer.sign(prehash: message)
            #expect(try ECDSA.recoverAddress(prehash: message, signature: signature) == info.address)
        }

        @Test("the page's example as written: the PIN from the file an environment variable names")
        func pinFileNamedByEnvironment() async throws {
            let fixture = try await TestHSM.fixture()
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("pin-file")
            let info = try token.generateKeyPair(label: label)
            let variable = "SIGNERKIT_TEST_PIN_FILE_\(UInt32.random(in: 0...UInt32.max))"
            #expect(
                throws: PKCS11Error.pinUnavailable("environment variable \(variable) (the PIN file's path) is not set")
            ) { try PINSource.environmentFile(name: variable).read() }
            ChildProcess.setEnvironment(variable, fixture.pinFile.path)
            defer { ChildProcess.setEnvironment(variable, nil) }
            let pin = try #require(try PINSource.environmentFile(name: variable).read())
            #expect(pin.withUnsafeBytes { Array($0) } == Array(TestHSM.pin.utf8))
            let signer = try PKCS11KeySigner.open(
                module: TestHSM.modulePath, token: .label(TestHSM.Label.main), key: .label(label),
                pin: .environmentFile(name: variable))
            let message = digest("pin file")
            let signature = try await signer.sign(prehash: message)
            #expect(try ECDSA.recoverAddress(prehash: message, signature: signature) == info.address)
            #expect(
                PINSource.environmentFile().description == "PIN file named by environment variable SIGNERKIT_PIN_FILE")
        }

        @Test("a signature that does not recover to the cached key is rejected")
        func mismatchRejected() async throws {
            let token = try await TestHSM.mainToken()
            let label = TestHSM.uniqueLabel("mismatch")
            let info = try token.generateKeyPair(label: label)
            let (handle, _) = try token.withAnchor(retry: true) { (session) throws(PKCS11Error) in
                try token.resolve(session: session, .label(label))
            }
            // A signer whose cached public key is not the token key's: every signature must fail the
            // recovery check.
            let other = PrivateKey.generate().publicKey
            let signer = PKCS11KeySigner(token: token, key: info, publicKey: other, handle: handle, maximumSessions: 1)
            for round in 0..<4 {
                let error = try await #require(throws: PKCS11Error.self) {
                    try await signer.signReportingPKCS11Error(prehash: digest("mismatch \(round)"))
                }
                guard case .signatureMismatch(let text) = error else {
                    Issue.record("expected signatureMismatch, got \(error)")
                    continue
                }
                #expect(text.contains(other.address.checksummed))
                await #expect(throws: SignerError.self) { try await signer.sign(prehash: digest("mismatch \(round)")) }
            }
            #expect(signer.openSessions == 1)  // the session stays usable
        }

        @Test("Ronin sponsorship with token keys: one signs as the payer, another as the sender; both recover")
        func sponsoredByTokenKeys() async throws {
            let token = try await TestHSM.mainToken()
            let payerLabel = TestHSM.uniqueLabel("payer")
            let senderLabel = TestHSM.uniqueLabel("sender")
            _ = try token.generateKeyPair(label: payerLabel)
            _ = try token.generateKeyPair(label: senderLabel)
            let payer = try token.signer(for: .label(payerLabel))
            let sender = try token.signer(for: .label(senderLabel))
            let outcome = try await SponsoredRoundTrip.run(payer: payer, sender: sender)
            #expect(outcome.payer == payer.address)
            #expect(outcome.sender == sender.address)
            #expect(outcome.raw.first == 0x64)
        }
    }
}
