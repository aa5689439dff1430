import EthereumPrimitives
import EthereumRPC
import EthereumTransactions
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Money safety against a real local EVM (eth-tester / py-evm): reverted and unmined transactions fail the
/// batch with their hash, dependent actions wait for the receipt, a lost send answer is recovered from the
/// journal without a second transaction, a lagging node cannot make two transactions share a nonce, and fee
/// caps judge node-filled fees.
@Suite("Broadcast safety on a local EVM")
struct BroadcastSafetyTests {
    typealias Setup = LocalChain

    /// A fresh journal file in a temporary directory.
    static func journal() throws -> FileTransactionJournal {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-journal-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return FileTransactionJournal(path: directory.appendingPathComponent("journal.jsonl").path)
    }

    static func hash(_ result: String) throws -> Bytes32 { try Bytes32(hex: result) }

    @Test("A reverted transaction (a call into code 0xfe) fails the batch with its hash, listed as broadcast")
    func reverted() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let dispatcher = RpcDispatcher(nodes: [setup.chain: setup.client])
        try dispatcher.register(setup.key)
        // Init code that deploys the one-byte runtime 0xfe (INVALID).
        let deploy = try await dispatcher.sign(actions: [
            setup.send(#""data":"0x60fe60005360016000f3","gas":"0x186a0""#)
        ])
        let receipt = try #require(try await setup.client.transactionReceipt(try Self.hash(deploy.results[0])))
        let contract = try #require(receipt.contractAddress)

        let call = setup.send(#""to":"\#(contract.lowercased)","gas":"0xc350""#)
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [call, setup.transfer()])
        }
        guard case .transactionReverted(let hash)? = error?.kind else {
            Issue.record("expected .transactionReverted, got \(String(describing: error))")
            return
        }
        #expect(error?.index == 0)
        #expect(error?.broadcast == [0: hash])
        #expect(error?.description.contains("transaction \(hash) reverted") == true)
        let reverted = try #require(try await setup.client.transactionReceipt(hash))
        #expect(!reverted.succeeded)
        // The transfer after it was never signed: the account sent exactly the deploy and the reverted call.
        #expect(try await setup.minedCount() == 2)
    }

    @Test("A two-step batch: the typed data is signed only after the approve transaction is mined")
    func dependentActionsWaitForTheReceipt() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let recorder = RecordingSigner(setup.key)
        let clock = ManualClock()
        var configuration = DispatchConfiguration(receiptPollInterval: .milliseconds(50))
        configuration.clock = clock
        let dispatcher = RpcDispatcher(nodes: [setup.chain: setup.client], configuration: configuration)
        try dispatcher.register(recorder)
        let typedData = Actions.typedData(setup.key.address, chain: setup.chain, chainIdJSON: nil)
        let typedDigest = try MailExample.digest(chainIdJSON: nil)

        try await setup.automine(false)
        let batch = Task { try await dispatcher.sign(actions: [setup.transfer(5), typedData]) }
        // The approve is signed and broadcast, then sits unmined: its receipt poll sleeps on the clock, and
        // the typed data waits for it.
        await clock.sleepers(atLeast: 1)
        #expect(recorder.signed.count == 1, "only the transaction is signed while it is unmined")
        #expect(!recorder.signed.contains(typedDigest))

        _ = try await setup.evm.call("evm_mine", [])
        clock.advance(by: .milliseconds(50))
        let signed = try await batch.value
        #expect(recorder.signed.count == 2)
        #expect(recorder.signed.last == typedDigest)
        let receipt = try #require(try await setup.client.transactionReceipt(try Self.hash(signed.results[0])))
        #expect(receipt.succeeded)
        try expectSignature(signed.results[1], by: setup.key.address, over: typedDigest)
    }

    @Test(
        "A transaction not mined by the deadline fails the batch as .transactionNotMined; its dependents are not signed"
    )
    func notMined() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let recorder = RecordingSigner(setup.key)
        let clock = ManualClock()
        var configuration = DispatchConfiguration(receiptTimeout: .seconds(30), receiptPollInterval: .milliseconds(50))
        configuration.clock = clock
        let dispatcher = RpcDispatcher(nodes: [setup.chain: setup.client], configuration: configuration)
        try dispatcher.register(recorder)
        try await setup.automine(false)
        // The caller's deadline (1 s) wins over the dispatcher's receipt timeout (30 s).
        let actions = [setup.transfer(), Actions.personal("after", setup.key.address, chain: setup.chain)]
        let deadline = clock.now.advanced(by: .seconds(1))
        let signing = Task { () async throws(DispatchError) -> SignedActions in
            try await dispatcher.sign(actions: actions, deadline: deadline)
        }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: DispatchError.self) { try await signing.value }
        guard case .transactionNotMined(let hash)? = error?.kind else {
            Issue.record("expected .transactionNotMined, got \(String(describing: error))")
            return
        }
        #expect(error?.index == 0)
        #expect(error?.broadcast == [0: hash])
        #expect(recorder.signed.count == 1, "the personal_sign after it was not signed")
    }

    @Test("An action after a send on a chain without a node is refused before anything is signed")
    func unobservableDependency() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let counter = CallCounter()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(CountingBackend(key: try TestKeys.key(TestKeys.alphaHex), counter: counter))
        let send = WalletRpcAction(
            chainId: TestChains.base, method: .sendTransaction,
            params: "[\(Actions.legacyTransactionJSON(from: key.address))]")
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [send, Actions.personal("after", key.address)])
        }
        #expect(error?.index == 1)
        #expect(error?.kind == .unobservableDependency(on: 0, chain: TestChains.base.description))
        #expect(counter.calls == 0)
        // Callers that sequence themselves can turn the rule off.
        let free = RpcDispatcher(configuration: DispatchConfiguration(ordersDependentActions: false))
        try free.register(CountingBackend(key: try TestKeys.key(TestKeys.alphaHex), counter: counter))
        _ = try? await free.sign(actions: [send, Actions.personal("after", key.address)])
        #expect(counter.indices.contains(1))
    }

    @Test("A send whose answer is lost is answered on re-run from the journal: same hash, one transaction on chain")
    func lostAnswerIsRecoveredFromTheJournal() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let journal = try Self.journal()
        let faulty = FaultyNode(setup.client)
        faulty.set("eth_sendRawTransaction", .loseAnswer)
        faulty.set("eth_getTransactionByHash", .unreachable)
        faulty.set("eth_getTransactionReceipt", .unreachable)
        let action = setup.transfer(7)

        let broken = RpcDispatcher(nodes: [setup.chain: faulty], configuration: DispatchConfiguration(journal: journal))
        try broken.register(setup.key)
        let error = await #expect(throws: DispatchError.self) { try await broken.sign(actions: [action]) }
        let listed = try #require(error?.broadcast[0], "the lost broadcast is listed: \(String(describing: error))")
        guard case .backend(.underlying(let text, _))? = error?.kind else {
            Issue.record("expected the outcome-unknown failure, got \(String(describing: error))")
            return
        }
        #expect(text.contains("outcome unknown"))
        #expect(try await setup.minedCount() == 1, "the node did accept it")
        #expect(
            try await journal.unresolvedEntry(
                for: ActionIdentity(action: action, account: setup.key.address, occurrence: 0))?.hash == listed)

        // The re-run (a healthy connection) signs nothing new: it answers with the same transaction.
        let recorder = RecordingSigner(setup.key)
        let healthy = RpcDispatcher(
            nodes: [setup.chain: setup.client], configuration: DispatchConfiguration(journal: journal))
        try healthy.register(recorder)
        let retried = try await healthy.sign(actions: [action])
        #expect(try Self.hash(retried.results[0]) == listed)
        #expect(recorder.signed.isEmpty)
        #expect(try await setup.minedCount() == 1)

        // Reported as a success, the entry is history: the same action again is a new payment.
        let again = try await healthy.sign(actions: [action])
        #expect(try Self.hash(again.results[0]) != listed)
        #expect(try await setup.minedCount() == 2)
    }

    @Test("With an idempotency key, a re-run is recognised by the key; a transaction the node never got is re-sent")
    func idempotencyKeyAndResend() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let journal = try Self.journal()
        let faulty = FaultyNode(setup.client)
        faulty.set("eth_sendRawTransaction", .unreachable)
        faulty.set("eth_getTransactionByHash", .unreachable)
        let broken = RpcDispatcher(nodes: [setup.chain: faulty], configuration: DispatchConfiguration(journal: journal))
        try broken.register(setup.key)
        let payment = setup.transfer(9)
        let error = await #expect(throws: DispatchError.self) {
            try await broken.sign(actions: [payment], idempotencyKey: "order-42")
        }
        let listed = try #require(error?.broadcast[0])
        #expect(try await setup.minedCount() == 0, "it never reached the node")

        // Same key, another payment (a fresh recipient): refused, never answered with the first transaction and
        // never signed.
        let recorder = RecordingSigner(setup.key)
        let healthy = RpcDispatcher(
            nodes: [setup.chain: setup.client], configuration: DispatchConfiguration(journal: journal))
        try healthy.register(recorder)
        let reused = await #expect(throws: DispatchError.self) {
            try await healthy.sign(actions: [setup.transfer(9)], idempotencyKey: "order-42")
        }
        guard case .idempotencyKeyReused(let journalled, let reason)? = reused?.kind else {
            Issue.record("expected idempotencyKeyReused, got \(String(describing: reused))")
            return
        }
        #expect(journalled == listed && reason.contains("to"), "\(reason)")
        #expect(recorder.signed.isEmpty)

        // Same key, the same payment rebuilt (other JSON text, same fields): the journalled bytes are sent.
        let rebuilt = WalletRpcAction(
            chainId: payment.chainId, method: payment.method,
            params: try JSONValue(parsing: payment.params).serialized + " ")
        let retried = try await healthy.sign(actions: [rebuilt], idempotencyKey: "order-42")
        #expect(try Self.hash(retried.results[0]) == listed)
        #expect(recorder.signed.isEmpty, "nothing was signed again")
        #expect(try await setup.minedCount() == 1)
        let mined = try #require(try await setup.client.transactionByHash(listed))
        #expect(mined["value"]?.stringValue == "0x9")
    }

    @Test("A node whose pending count lags cannot make two transactions share a nonce, in a batch or across runs")
    func laggingNode() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let lagging = FaultyNode(setup.client)
        lagging.set("eth_getTransactionCount", .answer(.string("0x0")))
        let journal = try Self.journal()
        let dispatcher = RpcDispatcher(
            nodes: [setup.chain: lagging], configuration: DispatchConfiguration(journal: journal))
        try dispatcher.register(setup.key)
        let batch = try await dispatcher.sign(actions: [setup.transfer(1), setup.transfer(2)])
        let later = try await dispatcher.sign(actions: [setup.transfer(3)])
        var nonces: [UInt256] = []
        for result in batch.results + later.results {
            let transaction = try #require(try await setup.client.transactionByHash(try Self.hash(result)))
            nonces.append(try UInt256(text: try #require(transaction["nonce"]?.stringValue)))
            #expect(try await setup.client.transactionReceipt(try Self.hash(result))?.succeeded == true)
        }
        #expect(nonces == [0, 1, 2])
        #expect(try await setup.minedCount() == 3)
    }

    @Test("Fee and gas caps refuse absurd node-filled values before anything is signed or sent")
    func feeCapsOnNodeFilledValues() async throws {
        let setup = try await Setup.start()
        defer { setup.evm.stop() }
        let greedy = FaultyNode(setup.client)
        let recorder = RecordingSigner(setup.key)
        let dispatcher = RpcDispatcher(nodes: [setup.chain: greedy]) {
            GasLimitCap(maximumGas: UInt256(1_000_000))
            FeeCap(maxFeePerGas: UInt256(1_000_000_000_000), maxTotalFee: UInt256(100_000_000_000_000_000))
        }
        try dispatcher.register(recorder)

        greedy.set("eth_maxPriorityFeePerGas", .answer(.string("0x1d1a94a2000")))  // 2,000 gwei
        var error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: [setup.transfer()]) }
        guard case .policyViolation("FeeCap", let reason)? = error?.kind else {
            Issue.record("expected FeeCap, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("exceeds the cap of 1000000000000 wei"))

        greedy.set("eth_maxPriorityFeePerGas", nil)
        greedy.set("eth_estimateGas", .answer(.string("0x5f5e100")))  // 100,000,000 gas
        error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: [setup.transfer()]) }
        #expect(
            error?.kind
                == .policyViolation(policy: "GasLimitCap", reason: "gas limit 100000000 exceeds the cap of 1000000"))

        // Given values are judged before any node call.
        greedy.set("eth_estimateGas", nil)
        error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [
                setup.send(
                    #""to":"\#(Actions.recipient.lowercased)","gas":"0x5208","maxFeePerGas":"0x5af3107a4000","maxPriorityFeePerGas":"0x1""#
                )
            ])
        }
        guard case .policyViolation("FeeCap", _)? = error?.kind else {
            Issue.record("expected FeeCap on given fees, got \(String(describing: error))")
            return
        }
        #expect(recorder.signed.isEmpty)
        #expect(try await setup.minedCount() == 0)
        #expect(!greedy.methods.contains("eth_sendRawTransaction"))
    }

    @Test("Nonces of 2^64 - 1 and above are refused (EIP-2681)")
    func nonceBound() async throws {
        let key = try TestKeys.key(TestKeys.alphaHex)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(try TestKeys.signer(TestKeys.alphaHex))
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [
                Actions.signTransaction(Actions.legacyTransactionJSON(from: key.address, nonce: "0xffffffffffffffff"))
            ])
        }
        guard case .invalidParams(let text)? = error?.kind else { Issue.record("\(String(describing: error))"); return }
        #expect(text.contains("EIP-2681"))
        let highest = try await dispatcher.sign(actions: [
            Actions.signTransaction(Actions.legacyTransactionJSON(from: key.address, nonce: "0xfffffffffffffffe"))
        ])
        #expect(try SignedTransaction.decode(hex: highest.results[0]).transaction.nonce == UInt256(UInt64.max - 1))
    }
}
