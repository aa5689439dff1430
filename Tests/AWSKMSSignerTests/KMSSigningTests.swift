import AWSKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// An AWS KMS key (`ECC_SECG_P256K1`) in a local KMS, every request SigV4-signed by libcurl and checked by the
/// tests' proxy as AWS checks it: the address from `GetPublicKey`, raw digests, and every method through the
/// dispatcher, recovered by eth-account.
@Suite("AWS KMS key signing on a local KMS")
struct KMSSigningTests {
    /// n / 2 for secp256k1: an s above it is high.
    static let halfOrder: UInt256 = 0x7FFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_5D57_6E73_57A4_501D_DFE9_2F46_681B_20A0

    /// A digest of 32 random bytes.
    static func randomDigest() -> Digest32 {
        Digest32((0..<32).map { _ in UInt8.random(in: 0...255) }) ?? Digest32()
    }

    @Test("GetPublicKey gives the address; 120 digests signed low-s, recovering to it, while KMS answers high s too")
    func digests() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let keyID = try await environment.createKey()
        let client = try environment.client()
        let signer = try await AWSKMSKeySigner.load(keyID: keyID, client: client)
        #expect(signer.address == signer.publicKey.address)
        #expect(signer.keyARN.hasSuffix("key/\(keyID)"))

        let half = Self.halfOrder
        let digests = (0..<120).map { _ in Self.randomDigest() }
        // Concurrently: the raw answers of KMS (to see its high-s half) and the signer's final signatures.
        async let raw = withThrowingTaskGroup(of: Bool.self) { group in
            for digest in digests {
                group.addTask {
                    let der = try await client.signDigest(digest, keyID: signer.keyARN)
                    let (_, s) = try ECDSA.signatureComponents(der: der)
                    return UInt256(word: s) > half
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        let signatures = try await withThrowingTaskGroup(of: (Int, RecoverableSignature).self) { group in
            for (index, digest) in digests.enumerated() {
                group.addTask { (index, try await signer.sign(prehash: digest)) }
            }
            return try await group.reduce(into: [Int: RecoverableSignature]()) { $0[$1.0] = $1.1 }
        }
        let highS = try await raw
        #expect(highS > 0, "KMS gave no high s in 120 signatures")
        var ids = Set<UInt8>()
        for (index, digest) in digests.enumerated() {
            let signature = try #require(signatures[index])
            #expect(UInt256(word: signature.s) <= half)
            #expect(try ECDSA.recoverAddress(prehash: digest, signature: signature) == signer.address)
            ids.insert(signature.recoveryId)
        }
        #expect(ids == [0, 1], "both recovery ids occur in 120 signatures")
        let stats = try await environment.kms.stats()
        #expect(stats.rejected == 0)
        #expect(stats.verified >= 241)
    }

    @Test("messages, typed data and every transaction type through the dispatcher, recovered by eth-account")
    func dispatcherMethods() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let keyID = try await environment.createKey()
        try await environment.createAlias("alias/payments-hot", keyID: keyID)
        // By alias, with temporary credentials: the session token travels signed.
        let signer = try await AWSKMSKeySigner.load(
            keyID: "alias/payments-hot", client: try environment.client(KMSEnvironment.temporary))
        let account = signer.address.checksummed
        let outcome = try await EveryMethodCheck.run(signer, label: "KMS")
        let results = outcome.results
        #expect(results.count == outcome.actionCount)

        for signature in results.prefix(2) {
            let bytes = try Hex.decode(signature)
            #expect(bytes.count == 65 && (bytes[64] == 27 || bytes[64] == 28), "v is 27 or 28")
        }
        #expect(outcome.recovered.count == outcome.actionCount)
        for (index, address) in outcome.recovered.enumerated() {
            #expect(address.stringValue == account, "action \(index) recovers to the KMS key's account")
        }
        // The type of each raw transaction is the one asked for.
        let types = results.dropFirst(2).map { (try? Hex.decode($0))?.first ?? 0 }
        #expect(types.count == 4 && types[0] >= 0xC0 && Array(types[1...]) == [0x01, 0x02, 0x04])
    }

    @Test("Ronin sponsorship with KMS keys: one signs as the payer (ronin_sponsorTransaction), another as the sender")
    func sponsoredByKMSKeys() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let client = try environment.client()
        let payer = try await AWSKMSKeySigner.load(keyID: try await environment.createKey(), client: client)
        let sender = try await AWSKMSKeySigner.load(keyID: try await environment.createKey(), client: client)
        let outcome = try await SponsoredRoundTrip.run(payer: payer, sender: sender)
        #expect(outcome.payer == payer.address)
        #expect(outcome.sender == sender.address)
        #expect(outcome.raw.first == 0x64)
    }
}
