import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Signed checkpoints: sign → text → parse → verify, and every way a note is refused.
@Suite("Signed checkpoint notes")
struct SignedNoteTests {
    typealias H = LedgerTestHelpers

    static let keyName = "signer.example.com/audit"

    /// A checkpoint of a 5-leaf test tree.
    static func checkpoint(time: Int64? = 1_767_225_600) throws -> Checkpoint {
        let tree = H.tree(size: 5)
        return try Checkpoint(origin: keyName, size: tree.size, root: tree.root, time: time)
    }

    /// A signature line written by hand: em dash, name, base64 of the key ID (big-endian) and `bytes`.
    static func line(_ name: String, keyID: UInt32, _ bytes: [UInt8]) -> String {
        let id = [UInt8(keyID >> 24), UInt8(keyID >> 16 & 0xFF), UInt8(keyID >> 8 & 0xFF), UInt8(keyID & 0xFF)]
        return "— \(name) \(Data(id + bytes).base64EncodedString())\n"
    }

    /// The error reading `text` and verifying it against `keyName` and `address` gives, or `nil`.
    static func failure(_ text: String, keyName: String = keyName, address: Address) -> SignedNoteError? {
        do {
            _ = try SignedNote(parsing: text).verify(keyName: keyName, address: address)
            return nil
        } catch { return error }
    }

    /// A key that claims `address` but signs with another key: a faulty backend.
    struct ImpostorSigner: PrehashSigner {
        let address: Address
        let key: SoftwareKeySigner
        func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
            try await key.sign(prehash: prehash)
        }
    }

    /// A key that refuses.
    struct RefusingSigner: PrehashSigner {
        let address: Address
        func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
            throw .rejected("the operator declined")
        }
    }

    @Test("sign → text → parse → verify gives back the checkpoint, with a generated key")
    func roundTrip() async throws {
        let key = SoftwareKeySigner.generate()
        let checkpoint = try Self.checkpoint()
        let note = try await SignedNote.sign(checkpoint, with: key, keyName: Self.keyName)
        #expect(note.body == checkpoint.body)
        #expect(note.signatures.count == 1)
        #expect(note.signatures[0].keyID == SignedNote.keyID(keyName: Self.keyName, address: key.address))
        #expect(note.signatures[0].bytes.count == 65)

        let read = try SignedNote(parsing: note.text)
        #expect(read == note)
        #expect(read.text == note.text)
        #expect(try read.verify(keyName: Self.keyName, address: key.address) == checkpoint)

        // The signature is the key's personal_sign signature over the body: what any Ethereum tool checks.
        let signature = try RecoverableSignature(rsv: note.signatures[0].bytes)
        try SignatureCheck.verify(signature, over: PersonalMessage.digest(Array(note.body.utf8)), by: key.address)
        #expect(note.text.hasPrefix(checkpoint.body + "\n— \(Self.keyName) "))
        #expect(note.text.hasSuffix("\n"))
    }

    @Test("refused for another address, another key name, a changed body byte, a changed signature")
    func refusals() async throws {
        let key = SoftwareKeySigner.generate()
        let other = SoftwareKeySigner.generate()
        let note = try await SignedNote.sign(try Self.checkpoint(), with: key, keyName: Self.keyName)
        let keyID = SignedNote.keyID(keyName: Self.keyName, address: key.address)

        #expect(
            Self.failure(note.text, address: other.address)
                == .noSignatureByKey(
                    keyName: Self.keyName, keyID: SignedNote.keyID(keyName: Self.keyName, address: other.address),
                    otherKeyIDs: [keyID]))
        #expect(
            Self.failure(note.text, keyName: "other.example.com/audit", address: key.address)
                == .noSignatureByKey(
                    keyName: "other.example.com/audit",
                    keyID: SignedNote.keyID(keyName: "other.example.com/audit", address: key.address), otherKeyIDs: []))

        // Line 2 is the size: 5 → 6. The key ID still matches; the signature no longer recovers to the key.
        let changedBody = note.text.replacingOccurrences(of: "\n5\n", with: "\n6\n")
        #expect(changedBody != note.text)
        guard case .badSignature(line: 6, let failure) = Self.failure(changedBody, address: key.address) else {
            Issue.record("a changed body must be a bad signature on line 6")
            return
        }
        switch failure {
        case .wrongSigner(let expected, _): #expect(expected == key.address)
        case .doesNotRecover: break
        case .highS: Issue.record("unexpected high s")
        }

        var bytes = note.signatures[0].bytes
        bytes[10] ^= 0x01
        let changedSignature = note.body + "\n" + Self.line(Self.keyName, keyID: keyID, bytes)
        guard case .badSignature(line: 6, _) = Self.failure(changedSignature, address: key.address) else {
            Issue.record("a changed signature byte must be a bad signature")
            return
        }
    }

    @Test("a truncated signature, a missing blank line and other malformed notes are named")
    func malformed() async throws {
        let key = SoftwareKeySigner.generate()
        let note = try await SignedNote.sign(try Self.checkpoint(), with: key, keyName: Self.keyName)
        let keyID = SignedNote.keyID(keyName: Self.keyName, address: key.address)
        let signature = note.signatures[0].bytes
        let address = key.address

        // Truncated to whole bytes (valid base64): the length is named.
        let shorter = note.body + "\n" + Self.line(Self.keyName, keyID: keyID, Array(signature.dropLast()))
        #expect(Self.failure(shorter, address: address) == .wrongSignatureLength(line: 6, length: 64))
        // Truncated text: no longer canonical base64.
        var cut = note.text
        cut.removeLast(2)
        cut += "\n"
        let cutLine = cut.split(separator: "\n").last ?? ""
        #expect(
            Self.failure(cut, address: address)
                == .malformedSignatureLine(line: 6, text: EchoedText.abbreviated(cutLine)))
        // v = 0 is not this signature type's encoding.
        var v0 = signature
        v0[64] -= 27
        #expect(
            Self.failure(note.body + "\n" + Self.line(Self.keyName, keyID: keyID, v0), address: address)
                == .invalidRecoveryByte(line: 6, value: v0[64]))

        let noBlank = note.text.replacingOccurrences(of: "\n\n", with: "\n")
        #expect(Self.failure(noBlank, address: address) == .missingBlankLine)
        #expect(Self.failure(String(note.text.dropLast()), address: address) == .missingFinalNewline)
        #expect(Self.failure(note.body + "\n", address: address) == .noSignatures)
        #expect(Self.failure("\n" + Self.line("a", keyID: 1, [1]), address: address) == .emptyBody)
        #expect(
            Self.failure("a\rb\n\n" + Self.line("a", keyID: 1, [1]), address: address) == .controlCharacter(line: 1))
        let many = note.text + String(repeating: Self.line("witness.example/w", keyID: 7, [1, 2]), count: 64)
        #expect(Self.failure(many, address: address) == .tooManySignatures(65))

        let base64 = Data([0, 0, 0, 1, 9]).base64EncodedString()
        for line in [
            "- a \(base64)", "—a \(base64)", "— a", "— a ", "—  a \(base64)", "— a  \(base64)", "— a+b \(base64)",
            "— a\u{A0}b \(base64)", "— a \(base64) ", "— a AAAAAQ==", "— a AAAAAQk", "— a \(base64)x",
        ] {
            #expect(
                Self.failure(note.body + "\n" + line + "\n", address: address)
                    == .malformedSignatureLine(line: 6, text: line), "\(line)")
        }
    }

    @Test("key IDs must match: a right signature under another key ID is not this key's")
    func keyIDs() async throws {
        let key = SoftwareKeySigner.generate()
        let note = try await SignedNote.sign(try Self.checkpoint(), with: key, keyName: Self.keyName)
        let keyID = SignedNote.keyID(keyName: Self.keyName, address: key.address)
        let forged = note.body + "\n" + Self.line(Self.keyName, keyID: keyID ^ 1, note.signatures[0].bytes)
        #expect(
            Self.failure(forged, address: key.address)
                == .noSignatureByKey(keyName: Self.keyName, keyID: keyID, otherKeyIDs: [keyID ^ 1]))

        // Another key's signature under this key's ID: the key ID matches, recovery names the other key.
        let impostor = SoftwareKeySigner.generate()
        let stolen = try await SignedNote.sign(try Self.checkpoint(), with: impostor, keyName: Self.keyName)
        let relabelled = note.body + "\n" + Self.line(Self.keyName, keyID: keyID, stolen.signatures[0].bytes)
        #expect(
            Self.failure(relabelled, address: key.address)
                == .badSignature(line: 6, .wrongSigner(expected: key.address, actual: impostor.address)))
    }

    @Test("other keys' lines are ignored; every line of this key must verify")
    func otherSignatures() async throws {
        let key = SoftwareKeySigner.generate()
        let note = try await SignedNote.sign(try Self.checkpoint(), with: key, keyName: Self.keyName)
        let witness = Self.line("witness.example/w1", keyID: 0xDEAD_BEEF, Array(repeating: 7, count: 72))
        let cosigned = note.text + witness
        let keyID = SignedNote.keyID(keyName: Self.keyName, address: key.address)
        #expect(try SignedNote(parsing: cosigned).verify(keyName: Self.keyName, address: key.address).size == 5)
        let witnessFirst = note.body + "\n" + witness + Self.line(Self.keyName, keyID: keyID, note.signatures[0].bytes)
        let read = try SignedNote(parsing: witnessFirst)
        #expect(read.signatures.map(\.keyName) == ["witness.example/w1", Self.keyName])
        #expect(try read.verify(keyName: Self.keyName, address: key.address).size == 5)

        let bad = Self.line(Self.keyName, keyID: keyID, Array(repeating: 1, count: 64) + [27])
        guard case .badSignature(line: 8, _) = Self.failure(cosigned + bad, address: key.address) else {
            Issue.record("a second line by the key that does not verify must refuse the note")
            return
        }
    }

    @Test("a signed text that is not a checkpoint verifies but does not read as one")
    func notACheckpoint() async throws {
        let key = SoftwareKeySigner.generate()
        let body = "\(Self.keyName)\n5\nnot base64\n"
        let signature = try await key.signPersonalMessage(Array(body.utf8))
        let text =
            body + "\n"
            + Self.line(
                Self.keyName, keyID: SignedNote.keyID(keyName: Self.keyName, address: key.address), signature.rsv)
        #expect(
            Self.failure(text, address: key.address)
                == .checkpoint(.malformedLine(line: 3, field: .rootHash, text: "not base64")))
    }

    @Test("signing refuses a bad key name, a refusing key and a key whose signature is not its own")
    func signingErrors() async throws {
        let key = SoftwareKeySigner.generate()
        let checkpoint = try Self.checkpoint()
        for name in ["", "a b", "a+b", "a\u{2003}b", "a\nb"] {
            await #expect(throws: SignedNoteError.invalidKeyName(name)) {
                try await SignedNote.sign(checkpoint, with: key, keyName: name)
            }
            #expect(
                Self.failure("x\n\n" + Self.line("a", keyID: 1, [1]), keyName: name, address: key.address)
                    == .invalidKeyName(name))
        }
        await #expect(throws: SignedNoteError.signing(.rejected("the operator declined"))) {
            try await SignedNote.sign(checkpoint, with: RefusingSigner(address: key.address), keyName: Self.keyName)
        }
        let impostor = ImpostorSigner(address: key.address, key: SoftwareKeySigner.generate())
        do {
            _ = try await SignedNote.sign(checkpoint, with: impostor, keyName: Self.keyName)
            Issue.record("an impostor's signature was written")
        } catch {
            guard case .signerMismatch(.wrongSigner(let expected, let actual)) = error else {
                Issue.record("expected a signer mismatch, got \(error)")
                return
            }
            #expect(expected == key.address)
            #expect(actual == impostor.key.address)
        }
    }
}
