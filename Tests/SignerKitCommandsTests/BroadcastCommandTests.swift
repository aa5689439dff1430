import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// The command line's money-safety contract: reverted transactions exit 65 with their hash and a
/// `broadcast:` line, fee caps (flags and defaults) refuse absurd fees, `tx sign --allow-unprotected`.
@Suite("sign --actions money safety, tx sign --allow-unprotected")
struct BroadcastCommandTests {
    static let recipient = "0x2d5fd9e4a3a225a78329a64d022581275b4ca416"

    /// A funded local node on chain 2021, a key file and a journal in a fresh directory, and the
    /// `sign --actions - … --rpc-url URL --journal FILE` arguments for them (URL: the node's, or `rpcURL`).
    struct Bench {
        let node: LocalEVM
        let directory: TemporaryDirectory
        let key: String

        static func start() async throws -> Bench {
            let node = try await LocalEVM.start(fund: [try Address(Actions.address)], chainId: 2021)
            let directory = try TemporaryDirectory()
            return Bench(node: node, directory: directory, key: try directory.write("key", Actions.keyHex))
        }

        func arguments(rpcURL: URL? = nil) -> [String] {
            [
                "sign", "--actions", "-", "--key-file", key, "--rpc-url", (rpcURL ?? node.url).absoluteString,
                "--journal", directory.path("journal.jsonl"),
            ]
        }

        /// The account's mined transaction count, as the node reports it.
        func minedCount() async throws -> String? {
            try await node.call("eth_getTransactionCount", [.string(Actions.address), .string("latest")]).stringValue
        }
    }

    static func send(_ members: [String: String]) -> JSONValue {
        var object = JSONObject(["from": .string(Actions.address)])
        for (name, value) in members { object[name] = .string(value) }
        return Actions.action(
            .sdk, chain: "eip155:2021", method: "eth_sendTransaction", params: .array([.object(object)]))
    }

    @Test("a reverted eth_sendTransaction: exit 65, its hash on a broadcast: line and in the error; nothing on stdout")
    func reverted() async throws {
        let bench = try await Bench.start()
        defer { bench.node.stop() }
        let node = bench.node
        let base = bench.arguments()
        let deploy = await signerkit(
            base, stdin: Actions.text([Self.send(["data": "0x60fe60005360016000f3", "gas": "0x186a0"])]))
        #expect(deploy.status == 0, "\(deploy)")
        let deployHash = try #require(try JSONValue(parsing: deploy.stdout).arrayValue?.first?.stringValue)
        let receipt = try await node.call("eth_getTransactionReceipt", [.string(deployHash)])
        let contract = try #require(receipt["contractAddress"]?.stringValue)

        let result = await signerkit(
            base,
            stdin: Actions.text([
                Self.send(["to": contract, "gas": "0xc350"]), Self.send(["to": Self.recipient, "value": "0x1"]),
            ]))
        #expect(result.status == ExitCode.invalidInput.rawValue, "\(result)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderrLines
        try #require(lines.count == 2, "\(result)")
        let hash = try #require(lines[0].split(separator: " ").last.map(String.init))
        #expect(lines[0] == "broadcast: action[0] \(hash)")
        #expect(lines[1] == "error: action[0] (eth_sendTransaction): transaction \(hash) reverted (receipt status 0)")
        let reverted = try await node.call("eth_getTransactionReceipt", [.string(hash)])
        #expect(reverted["status"]?.stringValue == "0x0")
        // The transfer after it was never sent.
        #expect(try await bench.minedCount() == "0x2")
    }

    @Test(
        "a send whose answer is lost (the connection drops after the node accepted it): exit 65 naming it; the re-run answers from the journal with the same hash, one transaction on chain"
    )
    func lostAnswer() async throws {
        let bench = try await Bench.start()
        defer { bench.node.stop() }
        let proxy = try await FaultServer.start(upstream: bench.node.url)
        defer { proxy.stop() }
        let arguments = bench.arguments(rpcURL: proxy.url)
        let actions = Actions.text([Self.send(["to": Self.recipient, "value": "0x2a"])])
        // The node accepts the transaction, the answer never arrives, and the node cannot be asked about it.
        try await proxy.add(
            FaultRule(.dropAfterForward, rpcMethod: "eth_sendRawTransaction"),
            FaultRule(.reset, rpcMethod: "eth_getTransactionByHash", times: -1))
        let first = await signerkit(arguments, stdin: actions)
        #expect(first.status == ExitCode.invalidInput.rawValue, "\(first)")
        #expect(first.stdout.isEmpty)
        try #require(first.stderrLines.count == 2, "\(first)")
        #expect(first.stderrLines[0].hasPrefix("broadcast: action[0] 0x"))
        let hash = String(first.stderrLines[0].dropFirst("broadcast: action[0] ".count))
        #expect(first.stderrLines[1].hasPrefix("error: action[0] (eth_sendTransaction): "))
        #expect(try await bench.minedCount() == "0x1", "the node did take it")

        let sends = { () async throws -> Int in
            try await proxy.requests().filter { $0.rpcMethod == "eth_sendRawTransaction" }.count
        }
        #expect(try await sends() == 1)

        // The same command again, the network healthy: the journal answers; nothing new is signed or mined.
        try await proxy.clear()
        let second = await signerkit(arguments, stdin: actions)
        expectSuccess(second, [JSONValue.array([.string(hash)]).serialized])
        #expect(try await bench.minedCount() == "0x1")
        #expect(try await sends() == 0, "mined already: the re-run read its receipt and sent nothing")
    }

    @Test(
        "--idempotency-key: a re-run after a success is answered with the same transaction; other actions under the key exit 65, nothing signed"
    )
    func idempotencyKeyAfterSuccess() async throws {
        let bench = try await Bench.start()
        defer { bench.node.stop() }
        let arguments = bench.arguments() + ["--idempotency-key", "order-7"]
        let actions = Actions.text([Self.send(["to": Self.recipient, "value": "0x7"])])
        let first = await signerkit(arguments, stdin: actions)
        #expect(first.status == 0, "\(first)")
        let hash = try #require(try JSONValue(parsing: first.stdout).arrayValue?.first?.stringValue)
        let again = await signerkit(arguments, stdin: actions)
        expectSuccess(again, [JSONValue.array([.string(hash)]).serialized])
        let other = await signerkit(
            arguments, stdin: Actions.text([Self.send(["to": Self.recipient, "value": "0x8"])]))
        #expect(other.status == ExitCode.invalidInput.rawValue, "\(other)")
        #expect(other.stderr.contains("the idempotency key was used for transaction \(hash)"), "\(other.stderr)")
        #expect(try await bench.minedCount() == "0x1", "one key, one transaction")
    }

    @Test("fee caps: the default refuses a fee of 2000 gwei; flags lower the caps for node-filled values")
    func feeCaps() async throws {
        let bench = try await Bench.start()
        defer { bench.node.stop() }
        let base = bench.arguments()
        let greedy = Self.send([
            "to": Self.recipient, "gas": "0x5208", "maxFeePerGas": "0x1d1a94a2000", "maxPriorityFeePerGas": "0x1",
        ])
        expectInvalid(
            await signerkit(base, stdin: Actions.text([greedy])),
            "action[0] (eth_sendTransaction): refused by policy FeeCap: fee per gas 2000000000000 wei exceeds the cap of 1000000000000 wei"
        )
        let open = Self.send(["to": Self.recipient, "value": "0x1"])
        expectInvalid(
            await signerkit(base + ["--max-fee-per-gas-cap", "1"], stdin: Actions.text([open])),
            "refused by policy FeeCap: fee per gas", "exceeds the cap of 1 wei")
        expectInvalid(
            await signerkit(base + ["--max-total-fee-cap", "1000"], stdin: Actions.text([open])),
            "refused by policy FeeCap: gas 21000 ×", "exceeds the total fee cap of 1000 wei")
        expectInvalid(
            await signerkit(base + ["--gas-cap", "20000"], stdin: Actions.text([open])),
            "refused by policy GasLimitCap: gas limit 21000 exceeds the cap of 20000")
        expectInvalid(
            await signerkit(base + ["--gas-cap", "lots"], stdin: Actions.text([open])),
            "--gas-cap: expected a non-negative integer, got lots")
        #expect(try await bench.minedCount() == "0x0")
    }

    @Test("tx sign: a legacy transaction without chainId needs --allow-unprotected")
    func unprotected() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let legacy =
            #"{"to":"\#(Self.recipient)","value":"0x1","nonce":"0x0","gas":"0x5208","gasPrice":"0x3b9aca00"}"#
        expectInvalid(
            await signerkit(["tx", "sign", "--key-file", key], stdin: legacy), "chainId", "--allow-unprotected")
        let result = await signerkit(["tx", "sign", "--key-file", key, "--allow-unprotected"], stdin: legacy)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let raw = try #require(try JSONValue(parsing: result.stdout)["raw"]?.stringValue)
        let signed = try SignedTransaction.decode(hex: raw)
        #expect(signed.transaction.chainId == nil)
        #expect(try signed.recoverSender().checksummed == Actions.address)
        // A typed transaction always carries its chain: the flag does not waive it.
        expectInvalid(
            await signerkit(
                ["tx", "sign", "--key-file", key, "--allow-unprotected"],
                stdin:
                    #"{"to":"\#(Self.recipient)","nonce":"0x0","gas":"0x5208","maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x1"}"#
            ), "chainId")
    }
}
