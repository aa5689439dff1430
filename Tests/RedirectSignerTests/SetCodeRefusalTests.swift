import EthereumPrimitives
import RedirectSigner
import SignerKit
import SignerKitTestSupport
import Testing

@Suite("Hosted wallet: EIP-7702")
struct SetCodeRefusalTests {
    @Test("a type-4 eth_sendTransaction is refused before the wallet is asked: its link could not carry the tuples")
    func setCodeTransactionIsRefused() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let dispatcher = RpcDispatcher()
        try dispatcher.register(WaypointSigner(session: wallet.session, accounts: [TestKeys.wallet.address]))
        let delegate = address("0x00000000000000000000000000000000000b0b0b")
        let tuple = try await TestKeys.other.signAuthorization(
            Authorization(chainId: 2020, address: delegate, nonce: 0), policy: AllowedDelegates([delegate]))
        let request = JSONValue.object(
            JSONObject([
                "from": .string(TestKeys.wallet.address.lowercased), "to": .string(TestKeys.other.address.lowercased),
                "value": .string("0x0"), "authorizationList": .array([tuple.json]),
            ]))
        let action = WalletRpcAction(
            chainId: MixedBatch.ronin, method: .sendTransaction, params: JSONValue.array([request]).serialized)
        await #expect {
            try await dispatcher.sign(actions: [action])
        } throws: { error in
            guard let error = error as? DispatchError, case .backend(.invalidRequest(let reason)) = error.kind else {
                return false
            }
            return reason.contains("EIP-7702")
        }
        #expect(wallet.simulator.receivedRequests.isEmpty)
    }
}
