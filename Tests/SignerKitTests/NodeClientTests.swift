import EthereumPrimitives
import EthereumRPC
import EthereumTransactions
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body` and returns the ``NodeError`` it throws, or `nil` when it succeeds (any other error is an issue).
private func nodeError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async
    -> NodeError?
{
    do {
        try await body()
        return nil
    } catch let error as NodeError {
        return error
    } catch {
        Issue.record("expected a NodeError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// 1000 ether in wei, what `--fund` credits by default.
private let eth1000Hex = "0x3635c9adc5dea00000"
/// eth-tester's first prefunded account (private key 0x…01), which pays for `--fund`.
private let testerAccountHex = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"

/// `a * b + c`, failing the test on overflow.
private func fee(_ a: UInt256, times b: UInt64, plus c: UInt256) throws -> UInt256 {
    try #require(a.multiplied(by: UInt256(b))?.adding(c))
}

/// ``JSONRPCClient`` and ``EthereumNode`` against a real local EVM (eth-tester / py-evm), see ``LocalEVM``.
@Suite("Node client")
struct NodeClientTests {
    @Test("eth_chainId and net_version: eth-tester's default chain id, or the one given")
    func chainId() async throws {
        let evm = try await LocalEVM.start()
        defer { evm.stop() }
        let client = JSONRPCClient(url: evm.url)
        #expect(try await client.chainId() == UInt256(131_277_322_940_537))
        #expect(try await client.call(method: "net_version", params: []) == .string("131277322940537"))

        let custom = try await LocalEVM.start(chainId: 1337)
        defer { custom.stop() }
        #expect(try await JSONRPCClient(url: custom.url).chainId() == UInt256(1337))
    }

    @Test("Fee suggestions: gas price, priority fee and the latest base fee")
    func fees() async throws {
        let evm = try await LocalEVM.start()
        defer { evm.stop() }
        let client = JSONRPCClient(url: evm.url)
        let tip = try await client.maxPriorityFeePerGas()
        #expect(tip == UInt256(1_000_000_000))
        let baseFee = try #require(try await client.latestBaseFee())
        #expect(baseFee > .zero)
        let gasPrice = try await client.gasPrice()
        #expect(gasPrice > tip)
        // The pending block's base fee never exceeds the latest's by more than 12.5 %.
        #expect(try gasPrice <= fee(baseFee, times: 2, plus: tip))
    }

    @Test("Funded accounts: balance and transaction counts")
    func fundedAccount() async throws {
        let key = PrivateKey.generate()
        let other = PrivateKey.generate()
        let evm = try await LocalEVM.start(fund: [key.address, other.address])
        defer { evm.stop() }
        let client = JSONRPCClient(url: evm.url)
        let testerAccount = try Address(testerAccountHex)
        #expect(try await client.transactionCount(of: key.address) == .zero)
        #expect(try await client.transactionCount(of: key.address, block: .latest) == .zero)
        // The prefunded account sent one funding transaction per address.
        #expect(try await client.transactionCount(of: testerAccount) == UInt256(2))
        #expect(try await client.transactionCount(of: testerAccount, block: .earliest) == .zero)
        let balance = try await client.call(
            method: "eth_getBalance", params: [.string(key.address.checksummed), .string("latest")])
        #expect(balance == .string(eth1000Hex))
        let gas = try await client.estimateGas(
            JSONObject([
                "from": .string(key.address.checksummed), "to": .string(other.address.lowercased),
                "value": .string("0x1"),
            ]))
        #expect(gas == UInt256(21_000))
    }

    @Test("A JSON-RPC error object becomes .rpc with the node's code and message")
    func rpcErrors() async throws {
        let evm = try await LocalEVM.start()
        defer { evm.stop() }
        let client = JSONRPCClient(url: evm.url)

        let garbage = await nodeError { _ = try await client.sendRawTransaction([0xde, 0xad, 0xbe, 0xef]) }
        guard case .rpc(let code, let message, let method)? = garbage else {
            Issue.record("expected .rpc, got \(String(describing: garbage))")
            return
        }
        #expect(code == -32000)
        #expect(message.hasPrefix("invalid transaction: "))
        #expect(method == "eth_sendRawTransaction")

        let unknown = await nodeError { _ = try await client.call(method: "eth_noSuchMethod", params: []) }
        #expect(
            unknown
                == .rpc(
                    code: -32601, message: "the method eth_noSuchMethod does not exist/is not available",
                    method: "eth_noSuchMethod"))
        #expect(
            unknown?.description
                == "eth_noSuchMethod: node error -32601: the method eth_noSuchMethod does not exist/is not available")

        let badParams = await nodeError {
            _ = try await client.call(method: "eth_getBalance", params: [.string("0x1234")])
        }
        guard case .rpc(-32602, _, "eth_getBalance")? = badParams else {
            Issue.record("expected .rpc(-32602), got \(String(describing: badParams))")
            return
        }
    }

    @Test("Unknown hashes: no receipt, no transaction, and waiting times out")
    func unknownTransaction() async throws {
        let evm = try await LocalEVM.start()
        defer { evm.stop() }
        let client = JSONRPCClient(url: evm.url)
        let hash = Keccak256.hash(Array("no such transaction".utf8))
        #expect(try await client.transactionReceipt(hash) == nil)
        #expect(try await client.transactionByHash(hash) == nil)
        let started = ContinuousClock.now
        let error = await nodeError {
            _ = try await client.waitForReceipt(hash, timeout: .milliseconds(300), pollInterval: .milliseconds(50))
        }
        #expect(error == .timeout(method: "eth_getTransactionReceipt"))
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    @Test("Transport failures: a closed port gives .transport; a non-JSON error status gives .http")
    func transportAndHTTP() async throws {
        let refusing = try RefusingPort()
        let closed = JSONRPCClient(
            url: try #require(URL(string: "http://127.0.0.1:\(refusing.port)")), timeout: .seconds(10))
        let error = await nodeError { _ = try await closed.chainId() }
        guard case .transport(let text)? = error else {
            Issue.record("expected .transport, got \(String(describing: error))")
            return
        }
        #expect(text.contains("eth_chainId"))
        withExtendedLifetime(refusing) {}

        let evm = try await LocalEVM.start()
        defer { evm.stop() }
        let unavailable = JSONRPCClient(url: evm.url.appendingPathComponent("http-status/503"))
        #expect(await nodeError { _ = try await unavailable.chainId() } == .http(status: 503, method: "eth_chainId"))
    }

    @Test("A signed EIP-1559 transfer is accepted, mined, and advances the nonce")
    func sendSignedTransaction() async throws {
        let key = PrivateKey.generate()
        let recipient = PrivateKey.generate().address
        let evm = try await LocalEVM.start(fund: [key.address])
        defer { evm.stop() }
        let client = JSONRPCClient(url: evm.url)

        let chainId = try await client.chainId()
        let nonce = try await client.transactionCount(of: key.address)
        #expect(nonce == .zero)
        let tip = try await client.maxPriorityFeePerGas()
        let baseFee = try #require(try await client.latestBaseFee())
        let value = UInt256(123_456_789)
        let gas = try await client.estimateGas(
            JSONObject([
                "from": .string(key.address.checksummed), "to": .string(recipient.checksummed),
                "value": .string(value.hexQuantity),
            ]))
        let transaction = EIP1559Transaction(
            chainId: chainId, nonce: nonce, maxPriorityFeePerGas: tip,
            maxFeePerGas: try fee(baseFee, times: 2, plus: tip), gasLimit: gas, to: recipient, value: value)
        let signed = transaction.signed(with: key.sign(prehash: transaction.signingHash))

        let hash = try await client.sendRawTransaction(signed.rawTransaction)
        #expect(hash == Keccak256.hash(signed.rawTransaction))
        let receipt = try await client.waitForReceipt(hash, timeout: .seconds(30), pollInterval: .milliseconds(100))
        #expect(receipt.succeeded)
        #expect(receipt.transactionHash == hash)
        #expect(receipt.from == key.address)
        #expect(receipt.to == recipient)
        #expect(receipt.contractAddress == nil)
        #expect(receipt.gasUsed == UInt256(21_000))
        #expect(receipt.blockNumber > .zero)
        if let price = receipt.effectiveGasPrice { #expect(price <= transaction.maxFeePerGas) }
        #expect(try await client.transactionCount(of: key.address) == UInt256(1))
        #expect(try await client.transactionCount(of: key.address, block: .latest) == UInt256(1))

        let mined = try #require(try await client.transactionByHash(hash))
        #expect(mined["from"]?.stringValue.flatMap { try? Address($0) } == key.address)
        #expect(mined["nonce"] == .string("0x0"))
        let balance = try await client.call(
            method: "eth_getBalance", params: [.string(recipient.checksummed), .string("latest")])
        #expect(balance == .string(value.hexQuantity))

        // The node refuses a replay (its nonce is used) and a transaction signed for another chain.
        let replay = await nodeError { _ = try await client.sendRawTransaction(signed.rawTransaction) }
        guard case .rpc(-32000, let replayMessage, "eth_sendRawTransaction")? = replay else {
            Issue.record("expected .rpc(-32000) for the replay, got \(String(describing: replay))")
            return
        }
        #expect(replayMessage.contains("nonce"))
        var otherChain = transaction
        otherChain.chainId = try #require(chainId.adding(UInt256(1)))
        otherChain.nonce = UInt256(1)
        let foreign = otherChain.signed(with: key.sign(prehash: otherChain.signingHash))
        let wrongChain = await nodeError { _ = try await client.sendRawTransaction(foreign.rawTransaction) }
        guard case .rpc(-32000, let chainMessage, _)? = wrongChain else {
            Issue.record("expected .rpc(-32000) for the wrong chain id, got \(String(describing: wrongChain))")
            return
        }
        #expect(chainMessage.contains("chain id"))
    }
}

/// An ``EthereumNode`` that answers from a table, to test the protocol's default implementations.
private struct ScriptedNode: EthereumNode {
    let answers: [String: Result<JSONValue, NodeError>]

    func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        guard let answer = answers[method] else {
            throw .rpc(code: -32601, message: "the method \(method) does not exist/is not available", method: method)
        }
        return try answer.get()
    }
}

extension NodeClientTests {
    /// ``EthereumNode``'s default implementations over a scripted node (no process needed).
    @Suite("EthereumNode defaults")
    struct Defaults {
        @Test("latestBaseFee falls back to eth_feeHistory when the block has no baseFeePerGas")
        func baseFeeFallback() async throws {
            let block = JSONValue.object(JSONObject(["number": .string("0x10")]))
            let history = JSONValue.object(
                JSONObject(["oldestBlock": .string("0x10"), "baseFeePerGas": .array([.string("0x7"), .string("0x8")])]))
            let node = ScriptedNode(answers: [
                "eth_getBlockByNumber": .success(block), "eth_feeHistory": .success(history),
            ])
            #expect(try await node.latestBaseFee() == UInt256(7))

            let preLondon = ScriptedNode(answers: [
                "eth_getBlockByNumber": .success(block),
                "eth_feeHistory": .success(
                    .object(JSONObject(["baseFeePerGas": .array([.string("0x0"), .string("0x0")])]))),
            ])
            #expect(try await preLondon.latestBaseFee() == nil)
            #expect(try await ScriptedNode(answers: ["eth_getBlockByNumber": .success(block)]).latestBaseFee() == nil)

            let withFee = ScriptedNode(answers: [
                "eth_getBlockByNumber": .success(.object(JSONObject(["baseFeePerGas": .string("0x3b9aca00")])))
            ])
            #expect(try await withFee.latestBaseFee() == UInt256(1_000_000_000))
        }

        @Test("Quantities must be hex strings; numbers are refused, not rounded")
        func strictQuantities() async throws {
            let node = ScriptedNode(answers: ["eth_chainId": .success(.number("1"))])
            let error = await nodeError { _ = try await node.chainId() }
            guard case .invalidResponse(method: "eth_chainId", _)? = error else {
                Issue.record("expected .invalidResponse, got \(String(describing: error))")
                return
            }
            let big = ScriptedNode(answers: [
                "eth_gasPrice": .success(.string("0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"))
            ])
            #expect(try await big.gasPrice() == UInt256.max)
        }

        @Test("Receipts: status, optional fields, and a missing status")
        func receipts() async throws {
            let hash = Keccak256.hash([1, 2, 3])
            var receipt = JSONObject([
                "transactionHash": .string(hash.hex), "status": .string("0x0"), "blockNumber": .string("0x2"),
                "blockHash": .string(hash.hex), "from": .string("0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"),
                "to": .null,
                "gasUsed": .string("0x5208"), "contractAddress": .string("0x000000000000000000000000000000000000dEaD"),
            ])
            let parsed = try TransactionReceipt(json: receipt)
            #expect(!parsed.succeeded)
            #expect(parsed.to == nil)
            #expect(parsed.effectiveGasPrice == nil)
            #expect(parsed.contractAddress == (try Address("0x000000000000000000000000000000000000dead")))
            receipt["status"] = nil
            #expect(throws: NodeError.self) { try TransactionReceipt(json: receipt) }
        }
    }
}

extension NodeClientTests {
    /// ``JSONRPCClient``'s retries over a scripted transport, every wait on a manual clock (no node, no real sleep).
    @Suite("JSON-RPC retries on the client's clock")
    struct Retries {
        typealias Outcome<T: Sendable & Equatable> = Result<T, NodeError>

        func client(_ transport: ScriptedHTTPTransport, clock: ManualClock, timeout: Duration = .seconds(30)) throws
            -> JSONRPCClient
        {
            JSONRPCClient(
                url: try #require(URL(string: "http://node.test/rpc")), timeout: timeout, transport: transport,
                clock: clock)
        }

        @Test(
            "a 503 to a read is repeated after its Retry-After, capped at 2 s on the client's clock; new id each time")
        func retryAfterOnClock() async throws {
            let clock = ManualClock()
            let transport = ScriptedHTTPTransport([
                .status(503, headers: ["Retry-After": "30"], body: "busy"),
                .status(200, body: #"{"jsonrpc":"2.0","id":2,"result":"0x2105"}"#),
            ])
            let client = try client(transport, clock: clock)
            let task = Task { () async -> Outcome<UInt256> in
                do throws(NodeError) { return .success(try await client.chainId()) } catch { return .failure(error) }
            }
            try #require(await clock.asleep(orDone: task), "a 503 to eth_chainId is followed by a wait")
            clock.advance(by: .milliseconds(1999))
            #expect(clock.sleeperCount == 1, "Retry-After: 30 waits the 2 s cap")
            clock.advance(by: .milliseconds(1))
            try #require(clock.sleeperCount == 0, "woken at the cap")
            #expect(try await clock.value(of: task) == .success(UInt256(8453)))
            let ids = transport.requests.map { try? JSONValue(parsing: $0.body ?? [])["id"] }
            #expect(ids == [.number("1"), .number("2")])
            let deadline = try #require(transport.requests.first?.deadline)
            #expect(transport.requests.allSatisfy { $0.deadline == deadline }, "one deadline for the whole call")
        }

        @Test("a wait the call's timeout leaves no time for is not started: the 503 stands")
        func noTimeForRetry() async throws {
            let clock = ManualClock()
            let transport = ScriptedHTTPTransport([
                .status(503, headers: ["Retry-After": "1"]),
                .status(200, body: #"{"jsonrpc":"2.0","id":2,"result":"0x1"}"#),
            ])
            let client = try client(transport, clock: clock, timeout: .milliseconds(500))
            let task = Task { () async -> Outcome<UInt256> in
                do throws(NodeError) { return .success(try await client.chainId()) } catch { return .failure(error) }
            }
            #expect(try await clock.value(of: task) == .failure(.http(status: 503, method: "eth_chainId")))
            #expect(transport.requests.count == 1)
        }

        @Test("eth_sendRawTransaction whose answer is lost is not sent again: the node is asked for its hash")
        func lostSend() async throws {
            let clock = ManualClock()
            let transport = ScriptedHTTPTransport([
                .failure(.outcomeUnknown("connection reset")),
                .status(200, body: #"{"jsonrpc":"2.0","id":2,"result":null}"#),
            ])
            let client = try client(transport, clock: clock)
            let raw: [UInt8] = [0x02, 0xc0]
            let task = Task { () async -> Outcome<Bytes32> in
                do throws(NodeError) { return .success(try await client.sendRawTransaction(raw)) } catch {
                    return .failure(error)
                }
            }
            let hash = Keccak256.hash(raw)
            #expect(
                try await clock.value(of: task)
                    == .failure(
                        .outcomeUnknown(
                            method: "eth_sendRawTransaction",
                            reason: "connection reset; the node does not know \(hash.hex)")))
            let methods = transport.requests.map { try? JSONValue(parsing: $0.body ?? [])["method"]?.stringValue }
            #expect(methods == ["eth_sendRawTransaction", "eth_getTransactionByHash"])
        }
    }
}
