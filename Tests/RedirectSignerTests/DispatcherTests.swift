import EIP712
import EthereumPrimitives
import RedirectSigner
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// Actions for a mixed batch: the software key and the hosted wallet alternate.
enum MixedBatch {
    static let ronin = ChainID(eip155: 2020)

    static func personalSign(_ text: String, by address: Address) -> WalletRpcAction {
        WalletRpcAction(
            chainId: ronin, method: .personalSign,
            params: JSONValue.array([.string(text), .string(address.lowercased)]).serialized)
    }

    static func typedData(by address: Address) throws -> WalletRpcAction {
        WalletRpcAction(
            chainId: ronin, method: .signTypedDataV4,
            params: JSONValue.array([.string(address.lowercased), try JSONValue(parsing: Fixtures.typedDataJSON)])
                .serialized)
    }

    static func send(from: Address, to: Address, value: String, data: String? = nil) -> WalletRpcAction {
        var object = JSONObject([
            "from": .string(from.lowercased), "to": .string(to.lowercased), "value": .string(value),
        ])
        if let data { object["data"] = .string(data) }
        return WalletRpcAction(
            chainId: ronin, method: .sendTransaction, params: JSONValue.array([.object(object)]).serialized)
    }

    /// Checks that `result` is a signature by `address` over the action's digest.
    static func expectSignature(
        _ result: ActionResult, by address: Address, digest: Digest32, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .signature(let signature) = result else {
            Issue.record("expected a signature, got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(
            (try? ECDSA.recoverAddress(prehash: digest, signature: signature)) == address,
            sourceLocation: sourceLocation)
    }
}

@Suite("Dispatcher backend")
struct DispatcherTests {
    @Test func mixedBackendsComeBackInOrder() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let dispatcher = RpcDispatcher()
        try dispatcher.register(TestKeys.software)
        let signer = WaypointSigner(session: wallet.session, accounts: [TestKeys.wallet.address])
        try dispatcher.register(signer)
        #expect(dispatcher.backend(for: TestKeys.wallet.address, chain: MixedBatch.ronin, method: .personalSign) != nil)
        #expect(
            dispatcher.backend(for: TestKeys.wallet.address, chain: ChainID(eip155: 1), method: .personalSign) == nil)

        let actions = [
            MixedBatch.personalSign("software first", by: TestKeys.software.address),
            try MixedBatch.typedData(by: TestKeys.wallet.address),
            MixedBatch.personalSign("hosted second", by: TestKeys.wallet.address),
            try MixedBatch.typedData(by: TestKeys.software.address),
            MixedBatch.send(from: TestKeys.wallet.address, to: TestKeys.other.address, value: "0x2386f26fc10000"),
        ]
        let signed = try await dispatcher.sign(actions: actions)
        #expect(signed.count == 5)
        #expect(signed.answers(actions))
        let typedDigest = try TypedData(jsonText: Fixtures.typedDataJSON).digest()
        MixedBatch.expectSignature(
            signed.outcomes[0], by: TestKeys.software.address,
            digest: PersonalMessage.digest(Array("software first".utf8)))
        MixedBatch.expectSignature(signed.outcomes[1], by: TestKeys.wallet.address, digest: typedDigest)
        MixedBatch.expectSignature(
            signed.outcomes[2], by: TestKeys.wallet.address, digest: PersonalMessage.digest(Array("hosted second".utf8))
        )
        MixedBatch.expectSignature(signed.outcomes[3], by: TestKeys.software.address, digest: typedDigest)
        guard case .transactionHash = signed.outcomes[4] else {
            Issue.record("expected a transaction hash")
            return
        }
        #expect(signed.results.allSatisfy { $0.hasPrefix("0x") })
        let send = try #require(wallet.simulator.receivedRequests.first { $0.path == "/wallet/send" })
        #expect(send.parameters["value"] == "10000000000000000")
        #expect(send.parameters["expectAddress"] == TestKeys.wallet.address.checksummed)
    }

    @Test func hexPersonalMessageIsDecodedToText() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let dispatcher = RpcDispatcher()
        try dispatcher.register(WaypointSigner(session: wallet.session, accounts: [TestKeys.wallet.address]))
        let hex = "0x" + Array("hex text".utf8).map { String($0, radix: 16) }.joined()
        let signed = try await dispatcher.sign(actions: [MixedBatch.personalSign(hex, by: TestKeys.wallet.address)])
        MixedBatch.expectSignature(
            signed.outcomes[0], by: TestKeys.wallet.address, digest: PersonalMessage.digest(Array("hex text".utf8)))
        #expect(wallet.simulator.receivedRequests.first?.parameters["message"] == "hex text")

        await #expect {
            try await dispatcher.sign(actions: [MixedBatch.personalSign("0xdeadbeef", by: TestKeys.wallet.address)])
        } throws: { error in
            guard let error = error as? DispatchError, case .backend(.invalidRequest) = error.kind else { return false }
            return error.index == 0
        }
        #expect(wallet.simulator.receivedRequests.count == 1)
    }

    @Test func walletRejectionFailsTheWholeBatch() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoReject))
        defer { Task { await wallet.close() } }
        let dispatcher = RpcDispatcher()
        try dispatcher.register(TestKeys.software)
        try dispatcher.register(WaypointSigner(session: wallet.session, accounts: [TestKeys.wallet.address]))
        await #expect {
            try await dispatcher.sign(actions: [
                MixedBatch.personalSign("a", by: TestKeys.software.address),
                MixedBatch.personalSign("b", by: TestKeys.wallet.address),
            ])
        } throws: { error in
            guard let error = error as? DispatchError, case .backend(.rejected) = error.kind else { return false }
            return error.index == 1
        }
    }

    @Test func foreignSignerFailsVerificationInTheDispatcher() async throws {
        let wallet = try SimulatedWallet.make(
            .init(signer: TestKeys.other, reportedAddress: TestKeys.wallet.address, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let dispatcher = RpcDispatcher()
        try dispatcher.register(WaypointSigner(session: wallet.session, accounts: [TestKeys.wallet.address]))
        await #expect {
            try await dispatcher.sign(actions: [try MixedBatch.typedData(by: TestKeys.wallet.address)])
        } throws: { error in
            // The hosted wallet's answer is read by the backend and checked once, by the dispatcher.
            guard let error = error as? DispatchError, case .verificationFailed(let reason) = error.kind else {
                return false
            }
            return error.index == 0 && reason.contains(TestKeys.other.address.checksummed)
        }
    }

    @Test func authorizeThenSignWithTheAuthorizedAccounts() async throws {
        let wallet = try SimulatedWallet.make(
            .init(signer: TestKeys.wallet, secondaryAddress: TestKeys.other.address, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let signer = try await WaypointSigner.authorize(session: wallet.session)
        #expect(signer.accounts == [TestKeys.wallet.address, TestKeys.other.address])
        #expect(signer.chains == Waypoint.roninChains)
        #expect(signer.methods == [.personalSign, .signTypedDataV4, .sendTransaction])
        let dispatcher = RpcDispatcher()
        try dispatcher.register(signer)
        let signed = try await dispatcher.sign(actions: [
            MixedBatch.personalSign("after login", by: TestKeys.wallet.address)
        ])
        MixedBatch.expectSignature(
            signed.outcomes[0], by: TestKeys.wallet.address, digest: PersonalMessage.digest(Array("after login".utf8)))
    }
}
