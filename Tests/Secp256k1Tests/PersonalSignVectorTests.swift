import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
import Testing

/// One line of the shared personal_sign.jsonl vectors.
struct PersonalSignVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let messageEncoding: String
    let message: String
    let privateKey: String
    let address: String
    let digest: String
    let signature: String

    var testDescription: String { name }

    static let all: [PersonalSignVector] = {
        guard let text = try? Vectors.text("personal_sign.jsonl") else { return [] }
        let decoder = JSONDecoder()
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            try? decoder.decode(PersonalSignVector.self, from: Data(line.utf8))
        }
    }()

    var messageBytes: [UInt8] {
        messageEncoding == "hex" ? PersonalMessage.bytes(fromParameter: message) : Array(message.utf8)
    }
}

@Suite struct PersonalSignVectorTests {
    @Test func fixtureLoads() {
        #expect(PersonalSignVector.all.count == 34)
        #expect(Set(PersonalSignVector.all.map(\.messageEncoding)) == ["utf8", "hex"])
    }

    @Test(arguments: PersonalSignVector.all)
    func vector(_ v: PersonalSignVector) throws {
        let digest = PersonalMessage.digest(v.messageBytes)
        #expect(digest.hex == v.digest)

        let key = try PrivateKey(hex: v.privateKey)
        #expect(key.address.checksummed == v.address)

        let signature = key.sign(prehash: digest)
        #expect(signature.hex == v.signature.lowercased())
        #expect(signature.isLowS)

        let expected = try RecoverableSignature(hex: v.signature)
        #expect(signature == expected)
        #expect(try ECDSA.recoverAddress(prehash: digest, signature: expected).checksummed == v.address)
        #expect(try ECDSA.recover(prehash: digest, signature: expected) == key.publicKey)
        #expect(ECDSA.verify(prehash: digest, r: expected.r, s: expected.s, publicKey: key.publicKey))
    }
}
