import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

@Suite("sign --actions --rpc-url against a local EVM node")
struct NodeActionTests {
    @Test("fills and broadcasts eth_sendTransaction, fills eth_signTransaction, signs messages; results in order")
    func broadcast() async throws {
        let node = try await LocalEVM.start(fund: [try Address(Actions.address)], chainId: 2021)
        defer { node.stop() }
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let recipient = "0x2d5fd9e4a3a225a78329a64d022581275b4ca416"
        // No nonce, gas or fees: the node supplies them.
        let open: JSONValue = .object(
            JSONObject([
                "from": .string(Actions.address), "to": .string(recipient), "value": .string("0x2386f26fc10000"),
            ]))
        // Another value: both run concurrently and may get the same nonce.
        let signOnly: JSONValue = .object(
            JSONObject(["from": .string(Actions.address), "to": .string(recipient), "value": .string("0x1")]))
        let actions = [
            try Actions.typedData(.sdk),
            Actions.action(.wire, method: "eth_sendTransaction", params: .array([open])),
            Actions.personalSign(.wire, "0x68656c6c6f"),
            Actions.action(.sdk, method: "eth_signTransaction", params: .array([signOnly])),
        ]
        let result = await signerkit(
            [
                "sign", "--actions", "-", "--key-file", key, "--rpc-url", node.url.absoluteString, "--journal",
                directory.path("journal.jsonl"),
            ],
            stdin: Actions.text(actions))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let results = try #require(try JSONValue(parsing: result.stdout).arrayValue).compactMap(\.stringValue)
        try #require(results.count == 4, "\(result)")

        expectSuccess(
            await signerkit(["recover", "typed-data", Fixtures.path("ronin_order.json"), "--signature", results[0]]),
            [Actions.address])
        expectSuccess(
            await signerkit(["recover", "message", "--hex", "0x68656c6c6f", "--signature", results[2]]),
            [Actions.address])

        // The broadcast transaction was mined, from our account, to the recipient.
        #expect(results[1].count == 66)
        let receipt = try await node.call("eth_getTransactionReceipt", [.string(results[1])])
        #expect(receipt["status"]?.stringValue == "0x1", "\(receipt.serialized)")
        #expect(receipt["from"]?.stringValue?.lowercased() == Actions.address.lowercased())
        #expect(receipt["to"]?.stringValue?.lowercased() == recipient)
        let balance = try await node.call("eth_getBalance", [.string(recipient), .string("latest")])
        #expect(balance.stringValue == "0x2386f26fc10000")

        // The signed-only transaction was filled for this chain and is not broadcast.
        let signed = try SignedTransaction.decode(hex: results[3])
        #expect(try signed.recoverSender().checksummed == Actions.address)
        #expect(signed.transaction.chainId == 2021)
        #expect(signed.transaction.value == 1)
        #expect(signed.transaction.gasLimit > 0 && signed.transaction.gasFeeCap > 0)
        let unknown = try await node.call("eth_getTransactionByHash", [.string(signed.hash.hex)])
        #expect(unknown == .null)
    }

    @Test("the node's chain id must match every action's chain")
    func chainMismatch() async throws {
        let node = try await LocalEVM.start(chainId: 2021)
        defer { node.stop() }
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let actions = [
            Actions.personalSign(.wire, "0x00"),
            Actions.action(
                .sdk, chain: "eip155:1", method: "personal_sign",
                params: .array([.string("0x00"), .string(Actions.address)])),
        ]
        expectInvalid(
            await signerkit(
                ["sign", "--actions", "-", "--key-file", key, "--rpc-url", node.url.absoluteString],
                stdin: Actions.text(actions)),
            "action[1] (personal_sign): the node at --rpc-url reports chain id 2021, not the action's chain eip155:1")
    }
}
