import EthereumPrimitives
import EthereumRPC
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Synchronization
import Testing

/// EIP-5792's `wallet_sendCalls` and `wallet_getCallsStatus` in the dispatcher, on a Prague local EVM with
/// SignerKit's ERC-7821 executor and a test token: atomic through the account's own delegation, atomic once
/// delegated, sequential, refused, retried under one id.
@Suite("wallet_sendCalls on a local EVM")
struct SendCallsLocalEVMTests {
    /// A dispatcher with a journal on `setup`'s chain (through `node`, the plain client by default) holding
    /// both keys, under `policies`.
    static func dispatcher(
        _ setup: BatchChain, node: (any EthereumNode)? = nil, @PolicyBuilder policies: () -> [any ActionPolicy]
    ) throws -> RpcDispatcher {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-calls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        TemporaryPaths.removeAtExit(directory.path)
        var configuration = DispatchConfiguration()
        configuration.journal = FileTransactionJournal(path: directory.appendingPathComponent("journal.jsonl").path)
        let dispatcher = RpcDispatcher(
            nodes: [setup.chain: node ?? setup.client], configuration: configuration, policies: policies)
        try dispatcher.register(setup.account)
        try dispatcher.register(setup.other)
        return dispatcher
    }

    @Test("a delegating batch also holds nonce + 1: refused, nothing signed, while another signer holds it")
    func authorityNonceReserved() async throws {
        let setup = try await BatchChain.start()
        defer { setup.evm.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-calls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        TemporaryPaths.removeAtExit(directory.path)
        let journal = ReservingJournal(
            FileTransactionJournal(path: directory.appendingPathComponent("journal.jsonl").path))
        var configuration = DispatchConfiguration()
        configuration.journal = journal
        let dispatcher = RpcDispatcher(nodes: [setup.chain: setup.client], configuration: configuration) {
            AllowedDelegates([setup.executor.address])
        }
        try dispatcher.register(setup.account)
        let account = setup.account.address
        // Another signer sharing the journal holds nonce 1, the one the batch's authorization would take.
        let held = try await journal.reserveNonce(
            chain: setup.chain, account: account, atLeast: 1, lease: .seconds(3600))
        #expect(held == 1)
        let request = try Self.request(
            setup, id: "held", atomicRequired: true,
            [ERC7821Batch.Call(to: setup.token, data: BatchChain.approve(setup.other.address, 5))])
        await #expect {
            _ = try await dispatcher.sendCalls(request)
        } throws: { error in
            "\(error)".contains("which the account's own authorization would take, is held by another transaction")
        }
        #expect(try await nonce(setup, account) == .zero)
        #expect(journal.liveReservations == 1, "the batch's own reservation of nonce 0 was released")
        // Once the other signer lets nonce 1 go, the same batch runs: nonce 0 and its authorization's 1.
        try await journal.releaseNonce(chain: setup.chain, account: account, nonce: 1)
        _ = try await dispatcher.sendCalls(request)
        #expect(try await nonce(setup, account) == 2)
        #expect(journal.liveReservations == 1, "nonce 1 stays reserved until its lease ends")
    }

    static func request(
        _ setup: BatchChain, id: String?, atomicRequired: Bool, _ calls: [ERC7821Batch.Call]
    ) throws -> CallBatchRequest {
        try CallBatchRequest(
            id: id, from: setup.account.address, chain: setup.chain, atomicRequired: atomicRequired, calls: calls)
    }

    func nonce(_ setup: BatchChain, _ address: Address) async throws -> UInt256 {
        try await setup.client.transactionCount(of: address, block: .latest)
    }

    @Test("ready → one type-4 transaction delegates and runs approve + transfer → supported; the same id sends once")
    func atomicThroughOwnDelegation() async throws {
        let setup = try await BatchChain.start()
        defer { setup.evm.stop() }
        let dispatcher = try Self.dispatcher(setup) { AllowedDelegates([setup.executor.address]) }
        let account = setup.account.address
        let spender = setup.other.address
        let recipient = PrivateKey.generate().address
        #expect(try await dispatcher.capabilities(of: account, chains: [setup.chain])[setup.chain]?.atomic == .ready)

        let calls = [
            ERC7821Batch.Call(to: setup.token, data: BatchChain.approve(spender, 100)),
            ERC7821Batch.Call(to: setup.token, data: BatchChain.transfer(recipient, 250)),
        ]
        let request = try Self.request(setup, id: "approve-and-pay", atomicRequired: true, calls)
        let before = try await nonce(setup, account)
        let batch = try await dispatcher.sendCalls(request)
        #expect(batch.execution == .atomicDelegating(to: setup.executor.address))
        // One transaction; its own authorization takes the next nonce too (EIP-7702).
        let after = try #require(before.adding(UInt256(2)))
        #expect(try await nonce(setup, account) == after)
        #expect(try await setup.allowance(account, spender) == 100)
        #expect(try await setup.balance(recipient) == 250)
        #expect(try await setup.code(account) == "0xef0100" + setup.executor.address.lowercased.dropFirst(2))

        let status = try await dispatcher.callsStatus(id: "approve-and-pay")
        #expect(status.code == .confirmed)
        #expect(status.receipts.count == 1)
        let receipt = try #require(status.receipts.first)
        let sent = try #require(
            try await setup.evm.call("eth_getTransactionByHash", [.string(receipt.receipt.transactionHash.hex)])
                .objectValue)
        #expect(sent["type"]?.stringValue == "0x4")
        #expect(receipt.logs.count == 2, "the token's Approval and Transfer events")
        let json = status.json(id: "approve-and-pay")
        #expect(json["status"] == .number("200"))
        #expect(json["atomic"] == .bool(true))
        #expect(json["version"] == .string("2.0.0"))
        #expect(
            try await dispatcher.capabilities(of: account, chains: [setup.chain])[setup.chain]?.atomic == .supported)

        // The same id and calls again: the same batch, nothing sent.
        #expect(try await dispatcher.sendCalls(request) == batch)
        #expect(try await nonce(setup, account) == after)
        #expect(try await setup.balance(recipient) == 250)
        // The same id with other calls: refused, nothing sent.
        let other = try Self.request(setup, id: "approve-and-pay", atomicRequired: true, Array(calls.prefix(1)))
        await #expect(throws: CallBatchError.duplicateID("approve-and-pay")) { try await dispatcher.sendCalls(other) }
        #expect(try await nonce(setup, account) == after)
        await #expect(throws: CallBatchError.unknownBatch("never sent")) {
            try await dispatcher.callsStatus(id: "never sent")
        }

        // Delegated now: a later batch is a plain transaction to the account itself, without an id of its own.
        let again = try await dispatcher.sendCalls(
            try Self.request(setup, id: nil, atomicRequired: true, [calls[1]]))
        #expect(again.execution == .atomic)
        #expect(again.id.count == 66 && again.id.hasPrefix("0x"))
        #expect(try await setup.balance(recipient) == 500)
        #expect(try await dispatcher.callsStatus(id: again.id).code == .confirmed)
    }

    @Test("atomic: a call that reverts on chain (its allowance revoked after estimation) undoes the batch: 500")
    func atomicRevertLeavesNothing() async throws {
        let setup = try await BatchChain.start()
        defer { setup.evm.stop() }
        let account = setup.account.address
        let owner = setup.other
        let recipient = PrivateKey.generate().address
        let spender = PrivateKey.generate().address
        // The account is delegated, and the owner lets it take 500 tokens.
        _ = try await setup.send(
            from: setup.account, to: account, data: ERC7821Batch(calls: []).calldata,
            authorizations: [try await setup.selfAuthorization()])
        _ = try await setup.send(from: owner, to: setup.token, data: BatchChain.approve(account, 500))
        // Between the node's estimate and the batch's inclusion, the owner revokes the allowance.
        let frontRun = FrontRunningNode(setup.client, before: account) {
            _ = try? await setup.send(from: owner, to: setup.token, data: BatchChain.approve(account, 0))
        }
        let dispatcher = try Self.dispatcher(setup, node: frontRun) { AllowedDelegates([setup.executor.address]) }
        let transferFrom =
            ERC20Calldata.selector("transferFrom(address,address,uint256)") + owner.address.word.bytes
            + recipient.word.bytes + UInt256(300).word.bytes
        let request = try Self.request(
            setup, id: "revoked", atomicRequired: true,
            [
                ERC7821Batch.Call(to: setup.token, data: BatchChain.approve(spender, 77)),
                ERC7821Batch.Call(to: setup.token, data: transferFrom),
            ])
        let batch = try await dispatcher.sendCalls(request)
        #expect(batch.execution == .atomic)
        #expect(frontRun.ran)
        let status = try await dispatcher.callsStatus(id: "revoked")
        #expect(status.code == .reverted)
        #expect(status.receipts.map(\.receipt.succeeded) == [false])
        #expect(try await setup.allowance(account, spender) == 0, "the first call's approval is undone")
        #expect(try await setup.balance(recipient) == 0)
    }

    @Test("not atomic: the approve is mined, the transfer cannot run and is never sent: 600 partially reverted")
    func sequentialPartial() async throws {
        let setup = try await BatchChain.start()
        defer { setup.evm.stop() }
        let dispatcher = try Self.dispatcher(setup) { AllowedDelegates([setup.executor.address]) }
        let account = setup.account.address
        let spender = setup.other.address
        let recipient = PrivateKey.generate().address
        let before = try await nonce(setup, account)
        let request = try Self.request(
            setup, id: "partial", atomicRequired: false,
            [
                ERC7821Batch.Call(to: setup.token, data: BatchChain.approve(spender, 100)),
                ERC7821Batch.Call(to: setup.token, data: BatchChain.transfer(recipient, BatchChain.supply + 1)),
            ])
        let batch = try await dispatcher.sendCalls(request)
        #expect(batch.execution == .sequential, "ready, but atomicity not required: the account is not delegated")
        #expect(try await setup.code(account) == "0x")
        #expect(try await nonce(setup, account) == before.adding(UInt256(1)))
        #expect(try await setup.allowance(account, spender) == 100)
        let status = try await dispatcher.callsStatus(id: "partial")
        #expect(status.code == .partiallyReverted)
        #expect(status.json(id: "partial")["atomic"] == .bool(false))
        #expect(status.receipts.map(\.receipt.succeeded) == [true])
        // A retry sends nothing more: the approve is journalled under the id, the transfer still cannot run.
        _ = try await dispatcher.sendCalls(request)
        #expect(try await nonce(setup, account) == before.adding(UInt256(1)))

        // Two calls that both run: two transactions, in order, 200.
        let both = try await dispatcher.sendCalls(
            try Self.request(
                setup, id: "both", atomicRequired: false,
                [
                    ERC7821Batch.Call(to: setup.token, data: BatchChain.transfer(recipient, 10)),
                    ERC7821Batch.Call(to: setup.token, data: BatchChain.transfer(recipient, 20)),
                ]))
        let statusBoth = try await dispatcher.callsStatus(id: both.id)
        #expect(statusBoth.code == .confirmed)
        #expect(statusBoth.receipts.count == 2)
        #expect(try await setup.balance(recipient) == 30)
    }

    @Test("atomicRequired for an account that cannot: 5760, nothing sent; no journal, unknown account, no node")
    func refusals() async throws {
        let setup = try await BatchChain.start()
        defer { setup.evm.stop() }
        let unpoliced = try Self.dispatcher(setup) {}
        let account = setup.account.address
        let before = try await nonce(setup, account)
        let call = ERC7821Batch.Call(to: setup.token, data: BatchChain.approve(setup.other.address, 1))
        let request = try Self.request(setup, id: "must-be-atomic", atomicRequired: true, [call])
        await #expect(throws: CallBatchError.atomicityNotSupported(account: account, chain: setup.chain)) {
            try await unpoliced.sendCalls(request)
        }
        #expect(CallBatchError.atomicityNotSupported(account: account, chain: setup.chain).code == 5760)
        #expect(try await nonce(setup, account) == before)
        // Nothing was recorded under the id either: it is free for a batch that can run.
        await #expect(throws: CallBatchError.unknownBatch("must-be-atomic")) {
            try await unpoliced.callsStatus(id: "must-be-atomic")
        }

        await #expect(throws: CallBatchError.noJournal) { try await setup.dispatcher.sendCalls(request) }
        let stranger = try CallBatchRequest(
            id: nil, from: PrivateKey.generate().address, chain: setup.chain, atomicRequired: false, calls: [call])
        await #expect(throws: CallBatchError.unknownAccount(stranger.from)) { try await unpoliced.sendCalls(stranger) }
        let elsewhere = try CallBatchRequest(
            id: nil, from: account, chain: ChainID(eip155: 999_999), atomicRequired: false, calls: [call])
        await #expect(throws: CallBatchError.unsupportedChain("eip155:999999")) {
            try await unpoliced.sendCalls(elsewhere)
        }
        #expect(try await nonce(setup, account) == before)
    }
}

/// A node that runs `frontRun` once, right after the first `eth_estimateGas` of a transaction to `target`
/// returns: what another party's transaction landing between a wallet's estimate and its own does.
final class FrontRunningNode: EthereumNode {
    private let node: any EthereumNode
    private let target: Address
    private let frontRun: @Sendable () async -> Void
    private let done = Mutex(false)

    init(_ node: any EthereumNode, before target: Address, frontRun: @escaping @Sendable () async -> Void) {
        self.node = node
        self.target = target
        self.frontRun = frontRun
    }

    /// Whether the front-run happened.
    var ran: Bool { done.withLock { $0 } }

    func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        let answer = try await node.call(method: method, params: params)
        if method == "eth_estimateGas", params.first?["to"]?.stringValue == target.lowercased,
            done.withLock({ (ran: inout Bool) in
                defer { ran = true }
                return !ran
            })
        {
            await frontRun()
        }
        return answer
    }
}
