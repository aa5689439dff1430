import CloudKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// Keys of Google Cloud KMS and Azure Key Vault on the stand-ins: the address from the public key, raw
/// digests (the stand-ins answer high s about every other time), and every method through the dispatcher,
/// recovered by eth-account.
@Suite("Google Cloud KMS and Azure Key Vault signing on the stand-ins")
struct CloudKMSSigningTests {
    /// n / 2 for secp256k1: an s above it is high.
    static let halfOrder: UInt256 = 0x7FFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_5D57_6E73_57A4_501D_DFE9_2F46_681B_20A0

    @Test(
        "the address from the public key; 110 digests signed low-s, recovering to it, while the service answers high s too",
        arguments: [LocalCloudKMS.Service.gcp, .azure])
    func digests(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let (name, address) = try await fixture.standins.createKey(service)
        let signer = try await fixture.signer(service, name).signer
        #expect(signer.address.checksummed == address, "the address eth-keys computes for the key")

        let digests = (0..<110).map { _ in Digest32((0..<32).map { _ in UInt8.random(in: 0...255) }) ?? Digest32() }
        let signatures = try await withThrowingTaskGroup(of: (Int, RecoverableSignature).self) { group in
            for (index, digest) in digests.enumerated() {
                group.addTask { (index, try await signer.sign(prehash: digest)) }
            }
            return try await group.reduce(into: [Int: RecoverableSignature]()) { $0[$1.0] = $1.1 }
        }
        var ids = Set<UInt8>()
        for (index, digest) in digests.enumerated() {
            let signature = try #require(signatures[index])
            #expect(UInt256(word: signature.s) <= Self.halfOrder)
            #expect(try ECDSA.recoverAddress(prehash: digest, signature: signature) == signer.address)
            ids.insert(signature.recoveryId)
        }
        #expect(ids == [0, 1], "both recovery ids occur in 110 signatures")
        let stats = try await fixture.standins.stats()
        // At least one per digest (a request that timed out on a loaded machine is repeated: signing is idempotent).
        #expect((stats["signatures"] ?? 0) >= 110)
        #expect((stats["highS"] ?? 0) > 0, "the stand-in answered no high s in 110 signatures")
        // One token for all of it (cached); for GCP, its JWT's RS256 signature verified by the stand-in.
        #expect(stats[service == .gcp ? "gcpTokens" : "azureTokens"] == 1)
        if service == .gcp { #expect(stats["jwtVerified"] == 1) }
    }

    @Test(
        "messages, typed data and every transaction type through the dispatcher, recovered by eth-account",
        arguments: [LocalCloudKMS.Service.gcp, .azure])
    func dispatcherMethods(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let signer = try await fixture.signer(service, try await fixture.standins.createKey(service).name).signer
        let account = signer.address.checksummed
        let outcome = try await EveryMethodCheck.run(signer, label: "cloud KMS")
        let results = outcome.results
        #expect(results.count == outcome.actionCount)

        for signature in results.prefix(2) {
            let bytes = try Hex.decode(signature)
            #expect(bytes.count == 65 && (bytes[64] == 27 || bytes[64] == 28), "v is 27 or 28")
        }
        #expect(outcome.recovered.count == outcome.actionCount)
        for (index, address) in outcome.recovered.enumerated() {
            #expect(address.stringValue == account, "action \(index) recovers to the key's account")
        }
        let types = results.dropFirst(2).map { (try? Hex.decode($0))?.first ?? 0 }
        #expect(types.count == 4 && types[0] >= 0xC0 && Array(types[1...]) == [0x01, 0x02, 0x04])
    }
}
