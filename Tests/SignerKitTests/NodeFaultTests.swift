import EthereumPrimitives
import EthereumRPC
import EthereumTransactions
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// ``JSONRPCClient`` through the fault-injecting proxy in front of a real local EVM: lost answers,
/// resets, 5xx, truncated bodies, hangs and redirects, with what the proxy saw.
@Suite("Node client under faults")
struct NodeFaultTests {
    struct Setup {
        let evm: LocalEVM
        let proxy: FaultServer
        let client: JSONRPCClient
        let key: PrivateKey

        static func start(timeout: Duration = .seconds(20), clock: any SignerClock = SystemClock()) async throws
            -> Setup
        {
            let key = PrivateKey.generate()
            let evm = try await LocalEVM.start(fund: [key.address])
            let proxy = try await FaultServer.start(upstream: evm.url)
            let client = JSONRPCClient(url: proxy.url, timeout: timeout, clock: clock)
            return Setup(evm: evm, proxy: proxy, client: client, key: key)
        }

        func stop() {
            proxy.stop()
            evm.stop()
        }

        /// A signed transfer with nonce `nonce`, fees from the node.
        func transfer(nonce: UInt64) async throws -> [UInt8] {
            let direct = JSONRPCClient(url: evm.url)
            let tip = try await direct.maxPriorityFeePerGas()
            let baseFee = try #require(try await direct.latestBaseFee())
            let transaction = EIP1559Transaction(
                chainId: try await direct.chainId(), nonce: UInt256(nonce), maxPriorityFeePerGas: tip,
                maxFeePerGas: try #require(baseFee.multiplied(by: UInt256(2))?.adding(tip)),
                gasLimit: UInt256(21_000), to: PrivateKey.generate().address, value: UInt256(1))
            return transaction.signed(with: key.sign(prehash: transaction.signingHash)).rawTransaction
        }

        func seen(_ method: String) async throws -> Int {
            try await proxy.requests().filter { $0.rpcMethod == method }.count
        }
    }

    @Test("a send whose answer is lost after the node took it returns the hash, found by eth_getTransactionByHash")
    func lostSendAnswer() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        for action in [FaultAction.dropAfterForward, .truncate] {
            let raw = try await setup.transfer(nonce: action == .dropAfterForward ? 0 : 1)
            try await setup.proxy.add(FaultRule(action, rpcMethod: "eth_sendRawTransaction"))
            let before = try await setup.seen("eth_sendRawTransaction")
            let hash = try await setup.client.sendRawTransaction(raw)
            #expect(hash == Keccak256.hash(raw))
            #expect(try await setup.seen("eth_sendRawTransaction") == before + 1, "\(action): sent once")
            #expect(try await JSONRPCClient(url: setup.evm.url).transactionByHash(hash) != nil)
        }
        #expect(try await setup.seen("eth_getTransactionByHash") == 2)
    }

    @Test("a send reset before it reached the node: outcome unknown, never sent again")
    func resetSend() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let raw = try await setup.transfer(nonce: 0)
        try await setup.proxy.add(FaultRule(.reset, rpcMethod: "eth_sendRawTransaction", times: -1))
        do {
            _ = try await setup.client.sendRawTransaction(raw)
            Issue.record("expected outcomeUnknown")
        } catch {
            guard case .outcomeUnknown(let method, let reason) = error else {
                Issue.record("expected outcomeUnknown, got \(error)"); return
            }
            #expect(method == "eth_sendRawTransaction")
            #expect(reason.contains("does not know"))
        }
        // Sent once and looked up once: no retry loop, whatever the machine's pace.
        #expect(try await setup.seen("eth_sendRawTransaction") == 1)
        #expect(try await setup.seen("eth_getTransactionByHash") == 1)
        #expect(try await JSONRPCClient(url: setup.evm.url).transactionByHash(Keccak256.hash(raw)) == nil)
    }

    @Test("idempotent reads are retried after resets, 500/503 and truncated bodies")
    func retriedReads() async throws {
        let clock = SkippingClock()
        let setup = try await Setup.start(clock: clock)
        defer { setup.stop() }
        try await setup.proxy.add(
            FaultRule(.reset, rpcMethod: "eth_chainId"),
            FaultRule(.respond, rpcMethod: "eth_chainId", status: 500, body: "oops", headers: ["Retry-After": "1e16"]),
            FaultRule(.respond, rpcMethod: "eth_gasPrice", status: 503, body: "busy"),
            FaultRule(.truncate, rpcMethod: "eth_gasPrice"),
            FaultRule(.dropAfterForward, rpcMethod: "eth_blockNumber"))
        #expect(try await setup.client.chainId() == UInt256(131_277_322_940_537))
        #expect(try await setup.seen("eth_chainId") == 3)  // the reset, the 500 (Retry-After capped at 2 s), the answer
        _ = try await setup.client.gasPrice()
        _ = try await setup.client.call(method: "eth_blockNumber", params: [])
        #expect(try await setup.seen("eth_gasPrice") == 3)
        #expect(try await setup.seen("eth_blockNumber") == 2)
        // Every wait capped (Retry-After 1e16 at 2 s): read off the clock, whose waits are skipped.
        // Two waits for eth_chainId, two for eth_gasPrice, one for eth_blockNumber.
        #expect(clock.waits.count == 5, "\(clock.waits)")
        #expect(clock.waits.allSatisfy { $0 <= .seconds(2) }, "\(clock.waits)")
        #expect(clock.waits.contains { $0 > .seconds(1) }, "the Retry-After wait at the cap: \(clock.waits)")
    }

    @Test("a hanging node: the call's timeout ends it; a redirect is refused and the other origin sees nothing")
    func hangAndRedirect() async throws {
        let setup = try await Setup.start(timeout: .seconds(1))
        defer { setup.stop() }
        try await setup.proxy.add(FaultRule(.hang, rpcMethod: "eth_chainId", times: -1))
        let clock = ContinuousClock()
        let started = clock.now
        do {
            _ = try await setup.client.chainId()
            Issue.record("expected a timeout")
        } catch {
            #expect(error == .timeout(method: "eth_chainId"))
        }
        // A lower bound only (a loaded machine makes it longer, never shorter): the timeout is not cut short. The
        // hang never answers, so the timeout error itself says the call's timeout ended it.
        #expect(started.duration(to: clock.now) >= .milliseconds(900))

        let other = try await FaultServer.start()
        defer { other.stop() }
        try await setup.proxy.add(
            FaultRule(.redirect, rpcMethod: "eth_gasPrice", status: 307, location: other.url.absoluteString, times: -1))
        do {
            _ = try await setup.client.gasPrice()
            Issue.record("expected a refused redirect")
        } catch {
            guard case .transport(let text) = error else { Issue.record("got \(error)"); return }
            #expect(text.contains("redirect refused: HTTP 307") && text.contains("127.0.0.1"))
        }
        #expect(try await other.requests().isEmpty)
    }
}
