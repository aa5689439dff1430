import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import SignerKit
import SoftwareSigner
import Testing

/// Actions built from typed values (`WalletRpcAction.personalSign(…)` and the others) sign exactly what the
/// same actions written as JSON sign, and a request's JSON reads back as the same request.
@Suite("Typed actions")
struct TypedActionsTests {
    let privateKey = PrivateKey.generate()
    var key: SoftwareKeySigner { SoftwareKeySigner(privateKey: privateKey) }

    /// The results of `actions` signed by a dispatcher holding the test key.
    func results(_ actions: [WalletRpcAction]) async throws -> [String] {
        let dispatcher = RpcDispatcher()
        try dispatcher.register(key)
        return try await dispatcher.sign(actions: actions).results
    }

    @Test("personalSign, signTypedData and signTransaction sign what the hand-written JSON actions sign")
    func sameAsJSON() async throws {
        let account = key.address
        // Text that looks like hex is signed as its characters.
        let text = "0x1234"
        let transaction = try TransactionRequest(
            json: try JSONValue(parsing: Actions.legacyTransactionJSON(from: account, chainId: "0x2105")))
        let typed = try await results([
            .personalSign(message: text, account: account, chain: TestChains.base),
            .personalSign(message: [0x12, 0x34], account: account, chain: TestChains.base),
            .signTypedData(try JSONValue(parsing: MailExample.json()), account: account, chain: TestChains.mainnet),
            .signTransaction(transaction, chain: TestChains.base),
        ])
        let written = try await results([
            Actions.personal(Hex.encode(Array(text.utf8)), account),
            Actions.personal("0x1234", account),
            Actions.typedData(account),
            WalletRpcAction(
                chainId: TestChains.base, method: .signTransaction,
                params: "[\(Actions.legacyTransactionJSON(from: account, chainId: "0x2105"))]"),
        ])
        #expect(typed == written)
        #expect(typed[0] != typed[1], "text is not read as hex")
        let action = WalletRpcAction(
            chainId: TestChains.base, method: .personalSign,
            params: .array([.string("0x1234"), .string(account.lowercased)]))
        #expect(action.params == #"["0x1234","\#(account.lowercased)"]"#)
    }

    @Test("a request's JSON reads back as the same request, for every type it can be")
    func requestJSONRoundTrip() throws {
        let to = Actions.recipient
        let authorization = Authorization(chainId: 8453, address: to, nonce: 3).sign(with: privateKey)
        let slot = Keccak256.hash(Array("slot".utf8))
        let requests = [
            TransactionRequest(type: .legacy, to: to),
            TransactionRequest(
                type: .legacy, from: key.address, to: to, value: 10, data: [1, 2], nonce: 7, gasLimit: 21_000,
                gasPrice: 5, chainId: 8453),
            TransactionRequest(
                type: .eip2930, to: to, gasPrice: 1, accessList: [AccessListEntry(address: to, storageKeys: [slot])]),
            TransactionRequest(type: .eip1559, to: nil, data: [0x60, 0x00], maxFeePerGas: 9, maxPriorityFeePerGas: 2),
            TransactionRequest(
                type: .eip7702, to: to, value: UInt256(UInt64.max), maxFeePerGas: 9, authorizationList: [authorization]
            ),
        ]
        for request in requests {
            #expect(try TransactionRequest(json: request.json) == request, "\(request.json.serialized)")
        }
        #expect(
            requests[1].json.serialized
                == #"{"type":"0x0","from":"\#(key.address.checksummed)","to":"\#(to.checksummed)","value":"0xa","data":"0x0102","nonce":"0x7","gas":"0x5208","gasPrice":"0x5","chainId":"0x2105"}"#
        )
    }
}
