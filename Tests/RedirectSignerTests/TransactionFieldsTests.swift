import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTesting
import SignerKit
import SignerKitTestSupport
import Testing

/// The transaction fields `/wallet/send` forwards: type (Ronin's sponsored 0x64 as is), gas, nonce, fees.
@Suite("Forwarded transaction fields")
struct TransactionFieldsTests {
    @Test func sessionForwardsSponsoredTypeAndGas() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let fields = WaypointTransactionFields(type: 0x64, gas: 90_000, nonce: 7)
        _ = try await wallet.session.sendTransaction(
            to: TestKeys.other.address, value: 1, data: nil, account: TestKeys.wallet.address, fields: fields)
        let sent = try #require(wallet.simulator.receivedRequests.first?.parameters)
        #expect(sent["type"] == "0x64")
        #expect(sent["gas"] == "90000")
        #expect(sent["nonce"] == "7")
        #expect(sent["maxFeePerGas"] == nil)
        let url = WaypointRequest(
            clientId: "c", redirect: "mydapp://cb", chainId: 2020,
            action: .send(to: TestKeys.other.address, value: 1, data: nil, expectAddress: nil))
        #expect(!url.url(state: "s").contains("type="))
    }

    @Test func dispatcherForwardsTheRequestFields() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let dispatcher = RpcDispatcher()
        try dispatcher.register(WaypointSigner(session: wallet.session, accounts: [TestKeys.wallet.address]))
        let object = JSONObject([
            "from": .string(TestKeys.wallet.address.lowercased), "to": .string(TestKeys.other.address.lowercased),
            "value": .string("0x1"), "type": .string("0x2"), "gas": .string("0x5208"), "nonce": .string("0x9"),
            "maxFeePerGas": .string("0x77359400"), "maxPriorityFeePerGas": .string("0x3b9aca00"),
        ])
        let action = WalletRpcAction(
            chainId: ChainID(eip155: 2020), method: .sendTransaction,
            params: JSONValue.array([.object(object)]).serialized)
        let signed = try await dispatcher.sign(actions: [action])
        guard case .transactionHash(let hash) = signed.outcomes[0] else {
            Issue.record("expected a transaction hash, got \(signed.outcomes)")
            return
        }
        let sent = try #require(wallet.simulator.receivedRequests.first?.parameters)
        #expect(sent["type"] == "0x2")
        #expect(sent["gas"] == "21000")
        #expect(sent["nonce"] == "9")
        #expect(sent["maxFeePerGas"] == "2000000000")
        #expect(sent["maxPriorityFeePerGas"] == "1000000000")
        // The simulator signed with the forwarded fields: the same transaction signed here has its hash.
        let expected = try await TestKeys.wallet.signTransaction(
            .eip1559(
                EIP1559Transaction(
                    chainId: 2020, nonce: 9, maxPriorityFeePerGas: 1_000_000_000, maxFeePerGas: 2_000_000_000,
                    gasLimit: 21_000, to: TestKeys.other.address, value: 1, data: [])))
        #expect(hash == expected.hash)
    }

    @Test func bareDispatcherSendForwardsNoType() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let dispatcher = RpcDispatcher()
        try dispatcher.register(WaypointSigner(session: wallet.session, accounts: [TestKeys.wallet.address]))
        _ = try await dispatcher.sign(actions: [
            MixedBatch.send(from: TestKeys.wallet.address, to: TestKeys.other.address, value: "0x1")
        ])
        let sent = try #require(wallet.simulator.receivedRequests.first?.parameters)
        #expect(sent["type"] == nil)
        #expect(sent["gas"] == nil)
    }

    @Test func dispatcherForwardsSponsoredType() async throws {
        // Ronin's sponsored type 0x64 through the dispatcher: forwarded as is to the hosted wallet, whose
        // transaction hash comes back; a software key signs one only with its payer's signature and expiry.
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let dispatcher = RpcDispatcher()
        try dispatcher.register(WaypointSigner(session: wallet.session, accounts: [TestKeys.wallet.address]))
        let object = JSONObject([
            "from": .string(TestKeys.wallet.address.lowercased), "to": .string(TestKeys.other.address.lowercased),
            "value": .string("0x1"), "type": .string("0x64"), "gas": .string("0x15f90"),
        ])
        let action = WalletRpcAction(
            chainId: ChainID(eip155: 2020), method: .sendTransaction,
            params: JSONValue.array([.object(object)]).serialized)
        let signed = try await dispatcher.sign(actions: [action])
        #expect(signed.results.count == 1)
        #expect(try Hex.decode(try #require(signed.results.first)).count == 32)
        let sent = try #require(wallet.simulator.receivedRequests.first?.parameters)
        #expect(sent["type"] == "0x64")
        #expect(sent["gas"] == "90000")

        let software = RpcDispatcher()
        try software.register(TestKeys.software)
        let local = WalletRpcAction(
            chainId: ChainID(eip155: 2020), method: .signTransaction,
            params: JSONValue.array([
                .object(
                    JSONObject([
                        "from": .string(TestKeys.software.address.lowercased),
                        "to": .string(TestKeys.other.address.lowercased), "value": .string("0x1"),
                        "type": .string("0x64"), "nonce": .string("0x0"), "gas": .string("0x5208"),
                        "maxFeePerGas": .string("0x1"), "maxPriorityFeePerGas": .string("0x1"),
                    ]))
            ]).serialized)
        do {
            _ = try await software.sign(actions: [local])
            Issue.record("a software key signed a sponsored transaction its payer never signed")
        } catch {
            #expect(error.index == 0)
            #expect(error.description.contains(#"field "expiredTime" is missing"#), "\(error)")
        }
    }
}
