import AWSKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// Many KMS keys as accounts of one dispatcher: bulk loading by tag and alias prefix, and a 100-action batch
/// whose signatures are in flight at once.
@Suite("AWS KMS bulk loading and concurrent batches on a local KMS")
struct KMSBulkTests {
    @Test("every key carrying a tag (or behind an alias prefix) becomes an account; others do not")
    func bulkLoading() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        var payments: [String] = []
        for _ in 0..<3 { payments.append(try await environment.createKey(tags: ["signer": "payments"])) }
        let other = try await environment.createKey(tags: ["signer": "treasury"])
        _ = try await environment.createKey(tags: ["team": "payments"])
        try await environment.createAlias("alias/pay-1", keyID: payments[0])
        try await environment.createAlias("alias/pay-2", keyID: other)
        try await environment.createAlias("alias/audit", keyID: payments[1])
        let client = try environment.client()

        var expected: [String: Address] = [:]
        for id in payments + [other] {
            expected[id] = try await AWSKMSKeySigner.load(keyID: id, client: client).address
        }
        let tagged = try await AWSKMSKeySigner.loadAll(.tag(key: "signer", value: "payments"), client: client)
        #expect(Set(tagged.map(\.keyID)) == Set(payments))
        for signer in tagged { #expect(signer.address == expected[signer.keyID]) }
        let anyValue = try await AWSKMSKeySigner.loadAll(.tag(key: "signer", value: nil), client: client, width: 2)
        #expect(Set(anyValue.map(\.keyID)) == Set(payments + [other]))
        let aliased = try await AWSKMSKeySigner.loadAll(.aliasPrefix("alias/pay-"), client: client)
        #expect(Set(aliased.map(\.keyID)) == [payments[0], other])
        #expect(try await AWSKMSKeySigner.loadAll(.tag(key: "absent", value: nil), client: client).isEmpty)

        // A tagged key that cannot sign fails the whole load, naming it.
        let wrong = try await environment.createKey(spec: "ECC_NIST_P256", tags: ["signer": "payments"])
        await #expect(throws: AWSKMSError.wrongKeySpec(keyID: wrong, keySpec: "ECC_NIST_P256", keyUsage: "SIGN_VERIFY"))
        {
            try await AWSKMSKeySigner.loadAll(.tag(key: "signer", value: "payments"), client: client)
        }
    }

    @Test("a 100-action batch over three KMS keys: signatures in flight at once, every result verified")
    func concurrentBatch() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        for _ in 0..<3 { _ = try await environment.createKey(tags: ["batch": "yes"]) }
        let signers = try await AWSKMSKeySigner.loadAll(
            .tag(key: "batch", value: "yes"), client: try environment.client())
        try #require(signers.count == 3)
        let dispatcher = RpcDispatcher()
        for signer in signers { try dispatcher.register(signer) }
        let actions = (0..<100).map { index in
            let account = signers[index % 3].address.checksummed
            let message = Hex.encode(Array("payment \(index)".utf8))
            return WalletRpcAction(
                chainId: ChainID(eip155: 8453), method: .personalSign, params: #"["\#(message)","\#(account)"]"#)
        }
        // The proxy holds the first 16 Sign requests until 16 are in flight at once: a signer that sent them
        // one after another would leave that at 1 (after the proxy's bound).
        try await environment.kms.hold(count: 16)
        let results = try await dispatcher.sign(actions: actions).results
        #expect(results.count == 100)
        for (index, result) in results.enumerated() {
            let signature = try RecoverableSignature(hex: result)
            let digest = PersonalMessage.digest(Array("payment \(index)".utf8))
            #expect(try ECDSA.recoverAddress(prehash: digest, signature: signature) == signers[index % 3].address)
        }
        let stats = try await environment.kms.stats()
        #expect(stats.maxInFlight >= 16, "at most \(stats.maxInFlight) requests were in flight at once")
        #expect(stats.rejected == 0)
    }
}
