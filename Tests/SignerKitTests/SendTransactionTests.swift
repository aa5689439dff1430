import EthereumPrimitives
import EthereumRPC
import EthereumTransactions
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// `eth_sendTransaction` through the dispatcher against a real local EVM (eth-tester / py-evm, see ``LocalEVM``):
/// nonce, gas and fees filled from the node, the transaction broadcast and mined.
@Suite("eth_sendTransaction on a local EVM")
struct SendTransactionTests {
    typealias Setup = LocalChain

    @Test("A transfer without nonce/gas/fees: filled (EIP-1559), broadcast, mined; the next one gets the next nonce")
    func sendFillsAndBroadcasts() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        #expect(setup.chain == ChainID(eip155: 131_277_322_940_537))
        let recipient = PrivateKey.generate().address
        #expect(try await setup.client.latestBaseFee() != nil)

        let first = setup.send(#""to":"\#(recipient.checksummed)","value":"0x2386f26fc10000""#)
        let second = setup.send(#""to":"\#(recipient.lowercased)","value":"12345""#)
        let one = try await setup.dispatcher.sign(actions: [first])
        let two = try await setup.dispatcher.sign(actions: [second])

        var hashes: [Bytes32] = []
        for (signed, expectedNonce, expectedValue) in [
            (one, UInt256(0), try UInt256(text: "0x2386f26fc10000")), (two, UInt256(1), UInt256(12_345)),
        ] {
            guard case .transactionHash(let hash) = try #require(signed.outcomes.first) else {
                Issue.record("expected a transaction hash, got \(signed.outcomes)")
                return
            }
            #expect(signed.results == [hash.hex])
            #expect(signed.results[0].count == 66)
            hashes.append(hash)

            let receipt = try await setup.client.waitForReceipt(
                hash, timeout: .seconds(20), pollInterval: .milliseconds(100))
            #expect(receipt.succeeded)
            #expect(receipt.transactionHash == hash)
            #expect(receipt.from == setup.key.address)
            #expect(receipt.to == recipient)
            #expect(receipt.gasUsed == UInt256(21_000))

            let transaction = try #require(try await setup.client.transactionByHash(hash))
            #expect(try Address(try #require(transaction["from"]?.stringValue)) == setup.key.address)
            #expect(try setup.quantity(transaction, "nonce") == expectedNonce)
            #expect(try setup.quantity(transaction, "value") == expectedValue)
            #expect(try setup.quantity(transaction, "type") == UInt256(2), "EIP-1559 when the node has a base fee")
            #expect(
                try setup.quantity(transaction, "maxPriorityFeePerGas")
                    == (try await setup.client.maxPriorityFeePerGas()))
            #expect(try setup.quantity(transaction, "gas") == UInt256(21_000))
        }
        #expect(hashes[0] != hashes[1])
        #expect(try await setup.client.transactionCount(of: setup.key.address) == UInt256(2))
        let balance = try await setup.client.call(
            method: "eth_getBalance", params: [.string(recipient.checksummed), .string("latest")])
        #expect(balance == .string((try UInt256(text: "0x2386f26fc10000")).adding(UInt256(12_345))!.hexQuantity))
    }

    @Test(
        "Explicit legacy gasPrice keeps the legacy type; eth_signTransaction fills from the node without broadcasting")
    func legacyAndSignOnly() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let recipient = PrivateKey.generate().address
        let gasPrice = try await setup.client.gasPrice()

        // A legacy send: nonce and gas come from the node, the given gasPrice is kept.
        let legacy = setup.send(#""to":"\#(recipient.lowercased)","value":"0x5","gasPrice":"\#(gasPrice.hexQuantity)""#)
        let signed = try await setup.dispatcher.sign(actions: [legacy])
        let hash = try Bytes32(hex: signed.results[0])
        _ = try await setup.client.waitForReceipt(hash, timeout: .seconds(20), pollInterval: .milliseconds(100))
        let mined = try #require(try await setup.client.transactionByHash(hash))
        #expect(try setup.quantity(mined, "type") == .zero)
        #expect(try setup.quantity(mined, "gasPrice") == gasPrice)

        let signOnly = WalletRpcAction(
            chainId: setup.chain, method: .signTransaction,
            params: #"{"from":"\#(setup.key.address.lowercased)","to":"\#(recipient.lowercased)","value":"0x7"}"#)
        let raw = try await setup.dispatcher.sign(actions: [signOnly])
        let decoded = try SignedTransaction.decode(hex: raw.results[0])
        #expect(decoded.transaction.type == .eip1559)
        #expect(decoded.transaction.chainId == UInt256(131_277_322_940_537))
        #expect(decoded.transaction.nonce == UInt256(1))
        #expect(try decoded.recoverSender() == setup.key.address)
        // Not broadcast by the dispatcher; the node accepts it when we send it.
        #expect(try await setup.client.transactionCount(of: setup.key.address) == UInt256(1))
        let sent = try await setup.client.sendRawTransaction(decoded.rawTransaction)
        #expect(sent == decoded.hash)
        let receipt = try await setup.client.waitForReceipt(
            sent, timeout: .seconds(20), pollInterval: .milliseconds(100))
        #expect(receipt.from == setup.key.address)
    }

    @Test("Several transactions from one account in one batch get consecutive nonces, in action order")
    func batchNonces() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let recipients = (0..<3).map { _ in PrivateKey.generate().address }
        let sends = recipients.enumerated().map { i, to in setup.send(#""to":"\#(to.lowercased)","value":"\#(i + 1)""#)
        }
        let signed = try await setup.dispatcher.sign(actions: sends)
        for (i, result) in signed.results.enumerated() {
            let hash = try Bytes32(hex: result)
            let receipt = try await setup.client.waitForReceipt(
                hash, timeout: .seconds(20), pollInterval: .milliseconds(100))
            #expect(receipt.succeeded)
            #expect(receipt.to == recipients[i])
            let mined = try #require(try await setup.client.transactionByHash(hash))
            #expect(try setup.quantity(mined, "nonce") == UInt256(UInt64(i)))
            #expect(try setup.quantity(mined, "value") == UInt256(UInt64(i + 1)))
        }

        // Sign-only transactions are not broadcast, so each later one in the batch takes the next nonce.
        let signOnly = recipients.map { to in
            WalletRpcAction(
                chainId: setup.chain, method: .signTransaction,
                params: #"[{"from":"\#(setup.key.address.lowercased)","to":"\#(to.lowercased)","value":"0x1"}]"#)
        }
        let raw = try await setup.dispatcher.sign(actions: signOnly)
        let nonces = try raw.results.map { try SignedTransaction.decode(hex: $0).transaction.nonce }
        #expect(nonces == [UInt256(3), UInt256(4), UInt256(5)])
    }

    @Test("A failing action cancels in-flight node work without hanging, and later sends still work")
    func cancellationDuringNodeCalls() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let recipient = PrivateKey.generate().address
        let other = try TestKeys.key(TestKeys.deltaHex)
        try setup.dispatcher.register(RejectingBackend(account: other.address, counter: CallCounter()))
        for round in 0..<12 {
            var actions = (0..<3).map { _ in setup.send(#""to":"\#(recipient.lowercased)","value":"0x1""#) }
            actions.insert(Actions.personal("no", other.address, chain: setup.chain), at: round % 4)
            let batch = Task { () -> Result<SignedActions, any Error> in
                do { return .success(try await setup.dispatcher.sign(actions: actions)) } catch {
                    return .failure(error)
                }
            }
            // A batch that hangs on its cancelled node calls fails at the bound (it only ends such a hang).
            let outcome = try #require(await RealTime.value(of: batch, within: .seconds(30)), "round \(round) hung")
            let error = #expect(throws: DispatchError.self) { try outcome.get() }
            #expect(error?.index == round % 4)
        }
        // Whatever was broadcast before the cancellation, the next send fills a valid nonce and is mined.
        let signed = try await setup.dispatcher.sign(actions: [
            setup.send(#""to":"\#(recipient.lowercased)","value":"0x2""#)
        ])
        let receipt = try await setup.client.waitForReceipt(
            try Bytes32(hex: signed.results[0]), timeout: .seconds(20), pollInterval: .milliseconds(100))
        #expect(receipt.succeeded)
    }

    @Test("A JSON-RPC error from the node becomes a DispatchError carrying the node's code and message")
    func nodeErrors() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let recipient = PrivateKey.generate().address
        let tooMuch = "0x6c6b935b8bbd400000"  // 2000 ether; the key holds 1000

        // Filling: eth_estimateGas refuses the transfer. The node's own error text is in the DispatchError.
        let nodeError: NodeError
        do {
            _ = try await setup.client.estimateGas(
                JSONObject([
                    "from": .string(setup.key.address.lowercased), "to": .string(recipient.lowercased),
                    "value": .string(tooMuch),
                ]))
            Issue.record("the node estimated gas for a transfer above the balance")
            return
        } catch {
            nodeError = error
        }
        guard case .rpc(let code, let message, _) = nodeError else {
            Issue.record("expected a JSON-RPC error, got \(nodeError)")
            return
        }
        let fill = setup.send(#""to":"\#(recipient.lowercased)","value":"\#(tooMuch)""#)
        let fillError = await #expect(throws: DispatchError.self) {
            try await setup.dispatcher.sign(actions: [
                Actions.personal("hello", setup.key.address, chain: setup.chain), fill,
            ])
        }
        #expect(fillError?.index == 1)
        #expect(fillError?.method == "eth_sendTransaction")
        #expect(fillError?.kind == .backend(.backendFailure("node: \(nodeError)")), "\(String(describing: fillError))")
        #expect(fillError?.description.contains("node error \(code): \(message)") == true)

        // Transactions of one account run in action order: after the first one fails, the second is not sent.
        let laneError = await #expect(throws: DispatchError.self) {
            try await setup.dispatcher.sign(actions: [
                fill, setup.send(#""to":"\#(recipient.lowercased)","value":"0x1""#),
            ])
        }
        #expect(laneError?.index == 0)
        #expect(try await setup.client.transactionCount(of: setup.key.address) == .zero)

        // Broadcast: with gas given, nothing is estimated and eth_sendRawTransaction is refused.
        let broadcast = setup.send(#""to":"\#(recipient.lowercased)","value":"\#(tooMuch)","gas":"0x5208""#)
        let sendError = await #expect(throws: DispatchError.self) {
            try await setup.dispatcher.sign(actions: [broadcast])
        }
        // The node's own error is kept (a definite refusal: the transaction is not listed as broadcast).
        guard case .backend(.underlying(let text, let underlying))? = sendError?.kind,
            case .rpc(let code, _, let method)? = underlying as? NodeError
        else {
            Issue.record("expected the node's error, got \(String(describing: sendError))")
            return
        }
        #expect(text == "the node refused the transaction")
        #expect(code == -32000 && method == "eth_sendRawTransaction")
        #expect(sendError?.broadcast == [:])
        #expect(
            sendError?.description.hasPrefix(
                "action[0] (eth_sendTransaction): backend failure: the node refused the transaction: "
                    + "eth_sendRawTransaction: node error -32000") == true)
    }
}
