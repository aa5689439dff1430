import EthereumPrimitives
import EthereumRPC
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// SignerKit's own ERC-7821 executor on a Prague local EVM, driven by transactions SignerKit signs: an EOA
/// delegates to it and batches approve + transfer in the same type-4 transaction to itself, a failing batch
/// changes nothing, and later batches need no new authorization.
@Suite("ERC-7821 batch executor on a local EVM")
struct BatchExecutorLocalEVMTests {
    @Test("the committed executor and token bytecode is what the committed Vyper sources compile to")
    func artifactsAreFresh() async throws {
        let check = try await TestContracts.checkCompiled()
        #expect(check.checked.contains("BatchExecutor.json"))
        #expect(check.checked.contains("TestToken.json"))
        #expect(check.stale == [], "recompile with scripts/evm-node/compile_contracts.py")
        let artifact = try TestContracts.artifact("BatchExecutor")
        #expect(artifact.compiler.hasPrefix("vyper 0.4.3"))
        #expect(artifact.evmVersion == "prague")
    }

    @Test("delegate + approve + transfer in one type-4 transaction; a reverting batch changes nothing; then type 2")
    func delegateAndBatch() async throws {
        let setup = try await BatchChain.start()
        defer { setup.evm.stop() }
        let account = setup.account.address
        let spender = PrivateKey.generate().address
        let recipient = PrivateKey.generate().address

        // The executor answers ERC-7821's capability question at its own address.
        let ask = JSONValue.object(
            JSONObject([
                "to": .string(setup.executor.address.lowercased),
                "data": .string(Hex.encode(ERC7821Batch.supportsExecutionModeCalldata())),
            ]))
        let supported = try await setup.evm.call("eth_call", [ask, .string("latest")]).stringValue
        #expect(supported == UInt256(1).word.hex)

        // 1. One type-4 transaction to itself: delegate, then approve + transfer.
        let first = ERC7821Batch(calls: [
            .init(to: setup.token, data: BatchChain.approve(spender, 100)),
            .init(to: setup.token, data: BatchChain.transfer(recipient, 40)),
        ])
        let delegated = try await setup.send(
            from: setup.account, to: account, data: first.calldata,
            authorizations: [try await setup.selfAuthorization()])
        #expect(delegated["status"]?.stringValue == "0x1")
        #expect(try await setup.code(account) == "0xef0100" + setup.executor.address.lowercased.dropFirst(2))
        #expect(try await setup.allowance(account, spender) == 100)
        #expect(try await setup.balance(recipient) == 40)
        #expect(try await setup.balance(account) == 960)

        // 2. A batch whose second call reverts (transfer beyond the balance), mined with a fixed gas: nothing
        //    of it stays, not even the first call's approval.
        let failing = ERC7821Batch(calls: [
            .init(to: setup.token, data: BatchChain.approve(spender, 999)),
            .init(to: setup.token, data: BatchChain.transfer(recipient, 961)),
        ])
        let reverted = try await setup.send(from: setup.account, to: account, data: failing.calldata, gas: 300_000)
        #expect(reverted["status"]?.stringValue == "0x0")
        #expect(try await setup.allowance(account, spender) == 100)
        #expect(try await setup.balance(recipient) == 40)
        #expect(try await setup.balance(account) == 960)

        // 3. Already delegated: a plain type-2 transaction to itself executes, with no new authorization.
        let spender2 = PrivateKey.generate().address
        let recipient2 = PrivateKey.generate().address
        let second = ERC7821Batch(calls: [
            .init(to: setup.token, data: BatchChain.approve(spender2, 100)),
            .init(to: setup.token, data: BatchChain.transfer(recipient2, 40)),
        ])
        let batched = try await setup.send(from: setup.account, to: account, data: second.calldata)
        #expect(batched["status"]?.stringValue == "0x1")
        let hash = try #require(batched["transactionHash"])
        let mined = try #require(try await setup.evm.call("eth_getTransactionByHash", [hash]).objectValue)
        #expect(mined["type"]?.stringValue == "0x2")
        #expect(try await setup.allowance(account, spender2) == 100)
        #expect(try await setup.balance(recipient2) == 40)

        // The same two calls as separate transactions from a plain EOA, the same storage changes: one
        // transaction's base cost saved outweighs the executor's overhead.
        // (Fresh spender and recipient, as the batch had: a first allowance and a first balance cost the most.)
        let approved = try await setup.send(
            from: setup.other, to: setup.token, data: BatchChain.approve(PrivateKey.generate().address, 100))
        let paid = try await setup.send(
            from: setup.other, to: setup.token, data: BatchChain.transfer(PrivateKey.generate().address, 40))
        #expect(approved["status"]?.stringValue == "0x1" && paid["status"]?.stringValue == "0x1")
        let batchGas = try BatchChain.gasUsed(batched)
        let separateGas = try BatchChain.gasUsed(approved) + BatchChain.gasUsed(paid)
        #expect(batchGas < separateGas)
        let delegatedGas = try BatchChain.gasUsed(delegated)
        print(
            "ERC-7821 gas: delegate + 2-call batch (type 4) \(delegatedGas.decimalString), "
                + "2-call batch (type 2) \(batchGas.decimalString), the same 2 calls as 2 transactions "
                + "\(separateGas.decimalString), executor deployment \(setup.executor.gasUsed)")
    }

    @Test("only the account itself may execute: a call from another account reverts, nothing moves")
    func onlySelf() async throws {
        let setup = try await BatchChain.start()
        defer { setup.evm.stop() }
        let account = setup.account.address
        let recipient = PrivateKey.generate().address
        let delegated = try await setup.send(
            from: setup.account, to: account, data: ERC7821Batch(calls: []).calldata,
            authorizations: [try await setup.selfAuthorization()])
        #expect(delegated["status"]?.stringValue == "0x1")
        let theft = ERC7821Batch(calls: [.init(to: setup.token, data: BatchChain.transfer(recipient, 1))])
        let refused = try await setup.send(from: setup.other, to: account, data: theft.calldata, gas: 200_000)
        #expect(refused["status"]?.stringValue == "0x0")
        #expect(try await setup.balance(account) == BatchChain.supply)
        #expect(try await setup.balance(recipient) == 0)
    }
}
