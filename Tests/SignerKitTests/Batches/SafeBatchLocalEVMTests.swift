import EthereumPrimitives
import EthereumRPC
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// EIP-5792 batches of a smart account that batches by itself: a real Safe v1.4.1 (2 of 3 owners) on a local
/// EVM, its calls run through MultiSendCallOnly in one `execTransaction` the submitter key sends; the Safe's
/// own `getTransactionHash` agrees with SignerKit's `SafeTransaction` digest.
@Suite("wallet_sendCalls of a Safe on a local EVM")
struct SafeBatchLocalEVMTests {
    @Test(
        "supported; one execTransaction; the same id once; a cap and a daily limit over the Safe's calls; a failing batch sends nothing"
    )
    func safeBatch() async throws {
        let deployer = try TestKeys.signer(TestKeys.alphaHex)
        let beta = try TestKeys.signer(TestKeys.betaHex)
        let gamma = try TestKeys.signer(TestKeys.gammaHex)
        let delta = try TestKeys.signer(TestKeys.deltaHex)
        let evm = try await LocalEVM.start(fund: [deployer.address, beta.address], chainId: 8453)
        defer { evm.stop() }
        let client = JSONRPCClient(url: evm.url)
        let chain = ChainID(eip155: 8453)
        let deployment = try await SafeDeployment.deploy(
            on: evm, deployerKeyHex: TestKeys.alphaHex,
            safes: [
                .init(owners: [beta.address, gamma.address, delta.address], threshold: 2, saltNonce: 21),
                .init(owners: [beta.address], threshold: 1, saltNonce: 22, deploy: false),
            ])
        let safe = deployment.safes[0].address
        let (token, _) = try await TestContracts.deploy(
            "TestToken", on: evm, deployerKeyHex: TestKeys.alphaHex,
            arguments: [.array([.string(safe.checksummed)]), .number("1000")])
        let batching = SafeAccountSigner.BatchExecution(
            multiSendCallOnly: deployment.multiSendCallOnly, submitter: beta.address)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-safe-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        TemporaryPaths.removeAtExit(directory.path)
        var configuration = DispatchConfiguration()
        configuration.journal = FileTransactionJournal(path: directory.appendingPathComponent("journal.jsonl").path)
        let usage = MemoryUsageCounterStore()
        let dispatcher = RpcDispatcher(nodes: [chain: client], configuration: configuration) {
            TokenSpendCap([.init(chain: chain, token: token, maximum: 400)])
            SpendLimit([.init(chain: chain, asset: .token(token), maximum: 500)], store: usage)
        }
        try dispatcher.register(beta)
        try dispatcher.register(
            try SafeAccountSigner(
                safe: safe, owners: [beta, gamma, delta], threshold: 2, chains: [chain], batchExecution: batching))
        let counterfactual = deployment.safes[1].address
        try dispatcher.register(
            try SafeAccountSigner(safe: counterfactual, owners: [beta], threshold: 1, batchExecution: batching))

        #expect(try await dispatcher.capabilities(of: safe, chains: [chain])[chain]?.atomic == .supported)
        #expect(
            try await dispatcher.capabilities(of: counterfactual, chains: [chain])[chain]?.atomic == .unsupported,
            "not deployed yet")

        let spender = PrivateKey.generate().address
        let recipient = PrivateKey.generate().address
        let calls = [
            ERC7821Batch.Call(to: token, data: BatchChain.approve(spender, 100)),
            ERC7821Batch.Call(to: token, data: BatchChain.transfer(recipient, 250)),
        ]
        // The Safe's own hash of the transaction SignerKit builds for these calls at nonce 0.
        let expected = SafeTransaction(batch: calls, multiSend: deployment.multiSendCallOnly, nonce: .zero)
        // getTransactionHash(to, value, data, operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver,
        // nonce): ten head words (data's offset 0x140), then data's length and padded bytes.
        var hashCall = ERC20Calldata.selector(
            "getTransactionHash(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,uint256)")
        hashCall += expected.to.word.bytes + UInt256.zero.word.bytes + UInt256(0x140).word.bytes
        hashCall += UInt256(1).word.bytes + [UInt8](repeating: 0, count: 32 * 6)
        hashCall += UInt256(UInt64(expected.data.count)).word.bytes + expected.data
        hashCall += [UInt8](repeating: 0, count: (32 - expected.data.count % 32) % 32)
        let answer = try await evm.call(
            "eth_call",
            [
                .object(JSONObject(["to": .string(safe.lowercased), "data": .string(Hex.encode(hashCall))])),
                .string("latest"),
            ])
        #expect(answer.stringValue == expected.digest(safe: safe, chainId: 8453).hex)

        let before = try await client.transactionCount(of: beta.address, block: .latest)
        let request = try CallBatchRequest(id: "safe-1", from: safe, chain: chain, atomicRequired: true, calls: calls)
        let batch = try await dispatcher.sendCalls(request)
        #expect(batch.execution == .smartAccount(submitter: beta.address))
        #expect(try await client.transactionCount(of: beta.address, block: .latest) == before.adding(UInt256(1)))
        let status = try await dispatcher.callsStatus(id: "safe-1")
        #expect(status.code == .confirmed)
        #expect(status.receipts.count == 1)
        #expect(try await balance(token, recipient, evm) == 250)
        #expect(try await allowance(token, safe, spender, evm) == 100)

        // The Safe's daily limit counts its calls (not its submitter's): 350 of 500.
        let window = UsageWindow.start(of: Date().timeIntervalSince1970, seconds: 86_400)
        let counter = "spend-limit:calendar:86400:account:\(chain):\(token.lowercased)"
        #expect(try await usage.totals(counter: counter, subject: safe.lowercased, windowStart: window).amount == 350)
        #expect(
            try await usage.totals(counter: counter, subject: beta.address.lowercased, windowStart: window) == .zero)

        // The same id: nothing sent.
        #expect(try await dispatcher.sendCalls(request) == batch)
        #expect(try await client.transactionCount(of: beta.address, block: .latest) == before.adding(UInt256(1)))

        // The cap sums over the calls of the Safe's batch: 250 moved above, but this batch alone asks 2 × 201.
        let capped = try CallBatchRequest(
            id: "safe-cap", from: safe, chain: chain, atomicRequired: false,
            calls: [
                ERC7821Batch.Call(to: token, data: BatchChain.transfer(recipient, 201)),
                ERC7821Batch.Call(to: token, data: BatchChain.transfer(recipient, 201)),
            ])
        await #expect {
            _ = try await dispatcher.sendCalls(capped)
        } throws: { error in
            guard case .dispatch(let failure) = error as? CallBatchError,
                case .policyViolation(let policy, _) = failure.kind
            else { return false }
            return policy == "TokenSpendCap"
        }
        // Over the daily limit with the 350 already moved: refused, nothing sent.
        let overLimit = try CallBatchRequest(
            id: "safe-limit", from: safe, chain: chain, atomicRequired: true,
            calls: [ERC7821Batch.Call(to: token, data: BatchChain.transfer(recipient, 160))])
        await #expect {
            _ = try await dispatcher.sendCalls(overLimit)
        } throws: { error in
            guard case .dispatch(let failure) = error as? CallBatchError,
                case .policyViolation(let policy, _) = failure.kind
            else { return false }
            return policy == "SpendLimit"
        }
        // A call that cannot run (no such function on the token) fails the Safe's execTransaction in the node's
        // estimate: nothing is sent.
        let failing = try CallBatchRequest(
            id: "safe-fails", from: safe, chain: chain, atomicRequired: true,
            calls: [
                ERC7821Batch.Call(to: token, data: BatchChain.approve(spender, 1)),
                ERC7821Batch.Call(to: token, data: [0xde, 0xad, 0xbe, 0xef]),
            ])
        await #expect {
            _ = try await dispatcher.sendCalls(failing)
        } throws: { error in
            guard case .dispatch(let failure) = error as? CallBatchError, case .backend = failure.kind else {
                return false
            }
            return true
        }
        #expect(try await client.transactionCount(of: beta.address, block: .latest) == before.adding(UInt256(1)))
        #expect(try await dispatcher.callsStatus(id: "safe-fails").code == .offchainFailure)
        #expect(try await allowance(token, safe, spender, evm) == 100)
    }

    func read(_ token: Address, _ data: [UInt8], _ evm: LocalEVM) async throws -> UInt256 {
        let call = JSONValue.object(JSONObject(["to": .string(token.lowercased), "data": .string(Hex.encode(data))]))
        return try UInt256(text: try #require(try await evm.call("eth_call", [call, .string("latest")]).stringValue))
    }

    func balance(_ token: Address, _ holder: Address, _ evm: LocalEVM) async throws -> UInt256 {
        try await read(token, ERC20Calldata.selector("balanceOf(address)") + holder.word.bytes, evm)
    }

    func allowance(_ token: Address, _ owner: Address, _ spender: Address, _ evm: LocalEVM) async throws -> UInt256 {
        try await read(
            token, ERC20Calldata.selector("allowance(address,address)") + owner.word.bytes + spender.word.bytes, evm)
    }
}
