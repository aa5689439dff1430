import CloudKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// Access tokens: one per identity while it is fresh, a new one once the injected clock passes its expiry
/// (less the safety margin), and a new one when the service refuses the cached one.
@Suite("Cloud KMS access tokens on the injected clock")
struct TokenCacheTests {
    static let digest = Digest32(Array(repeating: 0x17, count: 32)) ?? Digest32()

    @Test(
        "a token is reused until the clock nears its expiry, then fetched again",
        arguments: [LocalCloudKMS.Service.gcp, .azure])
    func expiry(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let counter = service == .gcp ? "gcpTokens" : "azureTokens"
        let clock = ManualClock()
        let signer = try await fixture.signer(service, try await fixture.standins.createKey(service).name, clock: clock)
        _ = try await signer.sign(Self.digest)
        #expect(try await fixture.standins.stats()[counter] == 1)
        // The stand-ins' tokens live 3599 s; the cache replaces them 300 s early.
        clock.advance(by: .seconds(3200))
        _ = try await signer.sign(Self.digest)
        #expect(try await fixture.standins.stats()[counter] == 1, "still fresh 399 s before expiry")
        clock.advance(by: .seconds(100))
        _ = try await signer.sign(Self.digest)
        #expect(try await fixture.standins.stats()[counter] == 2, "a new token 299 s before expiry")
        if service == .gcp { #expect(try await fixture.standins.stats()["jwtVerified"] == 2) }
    }

    @Test("a token the service refuses (401) is replaced once", arguments: [LocalCloudKMS.Service.gcp, .azure])
    func revoked(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let counter = service == .gcp ? "gcpTokens" : "azureTokens"
        let signer = try await fixture.signer(service, try await fixture.standins.createKey(service).name)
        try await fixture.standins.revokeTokens()
        let signature = try await signer.sign(Self.digest)
        #expect(try ECDSA.recoverAddress(prehash: Self.digest, signature: signature) == signer.signer.address)
        #expect(try await fixture.standins.stats()[counter] == 2)
    }
}
