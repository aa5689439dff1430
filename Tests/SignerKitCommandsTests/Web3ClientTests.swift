import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitSQLite
import SignerKitTestSupport
import Testing

/// `signerkit serve` driven by web3.py as an application would drive it (`Fixtures/web3_client.py`, run with
/// the local EVM venv's python, which has web3 pinned in `scripts/evm-node/requirements.txt`).
///
/// The client connects with `Web3.HTTPProvider(url, request_kwargs={"headers": {"Authorization": …}})` and
/// checks `w3.eth.accounts`, `w3.eth.chain_id`, a batch, `w3.eth.send_transaction` mined on a ``LocalEVM``
/// through the service's proxy (`wait_for_transaction_receipt`, balances, the node's own view of the
/// transaction), `personal_sign` and `eth_signTypedData_v4` through `w3.provider.make_request` (recovered with
/// eth-account) and HTTP 401 for a wrong or missing token. The client prints `ok <check>: …` per check and
/// exits 1 at the first failure; these tests expect every line, and check the node and the journal themselves.
@Suite(
    "signerkit serve driven by web3.py",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct Web3ClientTests {
    /// The service's two keys, in configuration order: the shared test key and a second one.
    static let keys = [TestKeys.alphaHex, TestKeys.betaHex]
    static let chainId: UInt64 = 2021
    static let recipient = "0x2D5Fd9e4A3a225a78329a64d022581275B4Ca416"
    /// 0.01 ether.
    static let value = "10000000000000000"

    /// The checksummed addresses of ``keys``.
    static func accounts() throws -> [String] {
        try keys.map { try TestKeys.key($0).address.checksummed }
    }

    /// A configuration with ``keys`` (files `k0.hex`, `k1.hex`), the client `app` with ``ServeTests/token``,
    /// chain ``chainId`` and, when given, `upstream` as its node.
    static func config(_ directory: TemporaryDirectory, upstream: URL?) throws -> String {
        var keyFiles: [String] = []
        for (index, key) in keys.enumerated() {
            try directory.write("k\(index).hex", key + "\n")
            keyFiles.append(#"{"keyFile": "k\#(index).hex"}"#)
        }
        let upstreamMember = upstream.map { #", "upstream": {"eip155:\#(chainId)": "\#($0.absoluteString)"}"# } ?? ""
        return try directory.write(
            "service.json",
            #"{"listen": "127.0.0.1:0", "keys": [\#(keyFiles.joined(separator: ", "))], "#
                + #""clients": [{"name": "app", "tokenSha256": "\#(ServeTests.tokenHash)"}], "#
                + #""chainId": "eip155:\#(chainId)"\#(upstreamMember)}"#)
    }

    /// One run of the client: its arguments and the bearer token it reads on stdin (never on the command line).
    struct ClientRun {
        let arguments: [String]
        let token: String
    }

    /// The client's run: the service at `service` with `token`, the node at `node`, the expected accounts,
    /// sending ``value`` to ``recipient`` from `sender`.
    static func arguments(
        service: URL, token: String = ServeTests.token, node: URL, chainId: UInt64 = chainId, accounts: [String],
        sender: String
    ) -> ClientRun {
        let arguments =
            [
                "--url", service.absoluteString, "--node-url", node.absoluteString, "--chain-id", String(chainId),
            ] + accounts.flatMap { ["--account", $0] } + [
                "--send-from", sender, "--recipient", recipient, "--value", value,
            ]
        return ClientRun(arguments: arguments, token: token)
    }

    /// Runs `Fixtures/<script>` (`web3_client.py` by default) as `run` says on the venv's python; output
    /// captured through files. A client still running after `hangLimit` is killed (a hang, not a slow run: the
    /// script's own waits are on conditions it checks).
    static func runClient(
        _ run: ClientRun, script: String = "web3_client.py", hangLimit: Duration = .seconds(30)
    ) async throws -> CommandResult {
        let directory = try TemporaryDirectory()
        let tokenPath = try directory.write("token", run.token)
        let outPath = try directory.write("stdout", "")
        let errPath = try directory.write("stderr", "")
        let process = Process()
        process.executableURL = LocalEVM.venv.appendingPathComponent("bin/python")
        process.arguments = [Fixtures.path(script)] + run.arguments
        // requests honours proxy variables: loopback must never go through one.
        process.environment = ProcessInfo.processInfo.environment.merging([
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "PYTHONDONTWRITEBYTECODE": "1",
        ]) { _, new in new }
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: tokenPath))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try await ChildProcess.run(process)
        await waitForExit(process, killAfter: hangLimit)
        #expect(process.terminationReason == .exit, "the web3.py client did not exit by itself")
        return CommandResult(
            status: process.terminationStatus,
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }

    @Test("web3.py: accounts, chain id, a batch, send_transaction mined on the node, personal_sign, typed data, 401")
    func application() async throws {
        let accounts = try Self.accounts()
        let sender = accounts[1]
        let node = try await LocalEVM.start(fund: try accounts.map { try Address($0) }, chainId: Self.chainId)
        defer { node.stop() }
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(config: try Self.config(directory, upstream: node.url))
        let result = try await Self.runClient(
            Self.arguments(service: service.url, node: node.url, accounts: accounts, sender: sender))
        let joined = accounts.joined(separator: " ")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == [
                "ok accounts: \(joined)",
                "ok chain_id: \(Self.chainId)",
                "ok batch: eth_getBalance eth_getBlockByNumber eth_getTransactionCount answered as the node does",
                "ok send_transaction: status 1, from \(sender), to \(Self.recipient), value \(Self.value), "
                    + "recipient +\(Self.value)",
                "ok personal_sign: recovers to \(joined)",
                "ok eth_signTypedData_v4: text and object forms recover to \(joined)",
                "ok unknown account: error -32001",
                "ok bad token: HTTP 401",
                "ok no token: HTTP 401",
            ], "\(result)")

        // The node's view, not the client's: the value arrived, from the second key, journalled at nonce 0.
        let balance = try await node.call("eth_getBalance", [.string(Self.recipient), "latest"])
        #expect(balance == .string("0x2386f26fc10000"), "\(balance.serialized)")
        let nonce = try await node.call("eth_getTransactionCount", [.string(sender), "latest"])
        #expect(nonce == .string("0x1"), "\(nonce.serialized)")
        let journal = try SQLiteTransactionJournal(path: directory.path("journal.sqlite"))
        #expect(
            try await journal.highestNonce(chain: ChainID(eip155: Self.chainId), account: try Address(sender)) == 0)
        #expect(await service.stop() == 0, "SIGTERM ends the service with status 0")
    }

    @Test("the web3.py client fails, naming the check, when the service is not what it expects")
    func clientFails() async throws {
        try await LocalEVM.ensureInstalled()
        let accounts = try Self.accounts()
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(config: try Self.config(directory, upstream: nil))
        // Never reached: each case fails before the client needs a node.
        let node = try #require(URL(string: "http://127.0.0.1:9"))
        let cases: [(run: ClientRun, failure: String)] = [
            (
                Self.arguments(service: service.url, node: node, accounts: accounts.reversed(), sender: accounts[0]),
                "FAIL accounts: w3.eth.accounts is ['\(accounts[0])', '\(accounts[1])'], expected "
                    + "['\(accounts[1])', '\(accounts[0])']"
            ),
            (
                Self.arguments(service: service.url, node: node, chainId: 1, accounts: accounts, sender: accounts[0]),
                "FAIL chain_id: w3.eth.chain_id is \(Self.chainId), expected 1"
            ),
            (
                Self.arguments(
                    service: service.url, token: "wrong", node: node, accounts: accounts, sender: accounts[0]),
                "FAIL accounts: HTTPError: 401 Client Error"
            ),
        ]
        for (arguments, failure) in cases {
            let result = try await Self.runClient(arguments)
            #expect(result.status == 1, "\(result)")
            #expect(
                result.stderrLines.first?.hasPrefix(failure) == true, "expected \(failure.debugDescription): \(result)")
        }
        #expect(await service.stop() == 0)
    }
}
