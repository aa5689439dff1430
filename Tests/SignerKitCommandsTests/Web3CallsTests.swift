import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Testing

/// EIP-5792 through `signerkit serve`, driven by web3.py as a dapp drives a wallet
/// (`Fixtures/web3_calls.py`), on a Prague local EVM: the atomic capability from unsupported (no executor on
/// chain) to ready (the allowed executor deployed) to supported (after the first atomic batch); approve +
/// transfer in one type-4 transaction; the same id sent once; a batch whose second call reverts on chain
/// leaving nothing (500); the same calls non-atomically (600, the approve mined); `atomicRequired` refused with
/// 5760; `wallet_showCallsStatus` 4200. The client checks the node itself; this test checks it again.
@Suite(
    "wallet_sendCalls through signerkit serve, driven by web3.py",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct Web3CallsTests {
    static let chainId: UInt64 = 2021

    /// Where `deployer`'s first contract creation (nonce 0) lands: keccak256(rlp([deployer, 0]))[12…].
    static func firstCreation(by deployer: Address) -> Address? {
        Address(bytes: Keccak256.hash([0xd6, 0x94] + deployer.bytes + [0x80]).bytes.suffix(20))
    }

    @Test("capabilities per state, atomic approve + transfer, same id once, atomic revert 500, sequential 600, 5760")
    func batches() async throws {
        let alpha = try TestKeys.signer(TestKeys.alphaHex)
        let sequential = try TestKeys.signer(TestKeys.epsilonHex)
        let deployer = try TestKeys.signer(TestKeys.betaHex)
        let owner = try TestKeys.signer(TestKeys.gammaHex)
        let tokenDeployer = try TestKeys.signer(TestKeys.deltaHex)
        let node = try await LocalEVM.start(
            fund: [alpha.address, sequential.address, deployer.address, owner.address, tokenDeployer.address],
            chainId: Self.chainId)
        defer { node.stop() }
        let holders = JSONValue.array([alpha, sequential, owner].map { .string($0.address.checksummed) })
        let (token, _) = try await TestContracts.deploy(
            "TestToken", on: node, deployerKeyHex: TestKeys.deltaHex, arguments: [holders, .number("1000")])
        let executor = try #require(Self.firstCreation(by: deployer.address))

        let directory = try TemporaryDirectory()
        try directory.write("k0.hex", TestKeys.alphaHex + "\n")
        try directory.write("k1.hex", TestKeys.epsilonHex + "\n")
        try directory.write("policy.json", #"{"allowedDelegates": ["\#(executor.checksummed)"]}"#)
        let config = try directory.write(
            "service.json",
            #"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k0.hex"}, {"keyFile": "k1.hex"}], "#
                + #""clients": [{"name": "app", "tokenSha256": "\#(ServeTests.tokenHash)"}], "#
                + #""chainId": "eip155:\#(Self.chainId)", "policyFile": "policy.json", "#
                + #""upstream": {"eip155:\#(Self.chainId)": "\#(node.url.absoluteString)"}}"#)
        let service = try await ServiceProcess.start(config: config)
        let deployerKey = try directory.write("deployer.hex", TestKeys.betaHex + "\n")
        let ownerKey = try directory.write("owner.hex", TestKeys.gammaHex + "\n")
        let arguments = [
            "--url", service.url.absoluteString, "--node-url", node.url.absoluteString, "--chain-id",
            String(Self.chainId), "--account", alpha.address.checksummed, "--sequential-account",
            sequential.address.checksummed, "--token", token.checksummed, "--token-abi",
            try TestContracts.artifact("TestToken").url.path, "--executor", executor.checksummed,
            "--executor-artifact", try TestContracts.artifact("BatchExecutor").url.path, "--deployer-key-file",
            deployerKey, "--owner-key-file", ownerKey,
        ]
        let result = try await Web3ClientTests.runClient(
            .init(arguments: arguments, token: ServeTests.token), script: "web3_calls.py", hangLimit: .seconds(300))
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == [
                "ok atomic required: unsupported, refused with 5760, nothing sent",
                "ok capabilities: unsupported before the executor, ready once it is deployed",
                "ok atomic batch: one type-4 transaction, approve and transfer both applied, status 200, now supported",
                "ok same id: answered with the same id, nothing sent twice",
                "ok atomic revert: the revert undid the approve too: status 500, no state change",
                "ok non-atomic batch: the approve mined, the transfer never sent: status 600, not delegated",
                "ok errors: wallet_showCallsStatus 4200, unknown id 5730",
            ], "\(result)")

        // The node's view: the account delegated to the executor, two batches and a refusal-free history.
        let code = try await node.call("eth_getCode", [.string(alpha.address.lowercased), "latest"])
        #expect(code == .string("0xef0100" + executor.lowercased.dropFirst(2)))
        let nonce = try await node.call("eth_getTransactionCount", [.string(alpha.address.lowercased), "latest"])
        #expect(nonce == .string("0x3"), "the delegating batch (two nonces) and the reverted one")
        #expect(await service.stop() == 0)
    }

    @Test("a Safe held by the service (owners and submitter among its keys): supported, one execTransaction, once")
    func safeBatch() async throws {
        let deployer = try TestKeys.signer(TestKeys.alphaHex)
        let owners = [try TestKeys.signer(TestKeys.betaHex), try TestKeys.signer(TestKeys.gammaHex)]
        let submitter = owners[0]
        let node = try await LocalEVM.start(fund: [deployer.address, submitter.address], chainId: Self.chainId)
        defer { node.stop() }
        let deployment = try await SafeDeployment.deploy(
            on: node, deployerKeyHex: TestKeys.alphaHex,
            safes: [.init(owners: owners.map(\.address), threshold: 2, saltNonce: 7)])
        let safe = deployment.safes[0].address
        let (token, _) = try await TestContracts.deploy(
            "TestToken", on: node, deployerKeyHex: TestKeys.alphaHex,
            arguments: [.array([.string(safe.checksummed)]), .number("1000")])

        let directory = try TemporaryDirectory()
        try directory.write("k0.hex", TestKeys.betaHex + "\n")
        try directory.write("k1.hex", TestKeys.gammaHex + "\n")
        let safes =
            #"[{"address": "\#(safe.checksummed)", "owners": ["\#(owners[0].address.checksummed)", "#
            + #""\#(owners[1].address.checksummed)"], "threshold": 2, "#
            + #""multiSendCallOnly": "\#(deployment.multiSendCallOnly.checksummed)", "#
            + #""submitter": "\#(submitter.address.checksummed)"}]"#
        let config = try directory.write(
            "service.json",
            #"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k0.hex"}, {"keyFile": "k1.hex"}], "#
                + #""clients": [{"name": "app", "tokenSha256": "\#(ServeTests.tokenHash)"}], "#
                + #""chainId": "eip155:\#(Self.chainId)", "safes": \#(safes), "#
                + #""upstream": {"eip155:\#(Self.chainId)": "\#(node.url.absoluteString)"}}"#)
        let service = try await ServiceProcess.start(config: config)
        let arguments = [
            "--safe", "--url", service.url.absoluteString, "--node-url", node.url.absoluteString, "--chain-id",
            String(Self.chainId), "--account", safe.checksummed, "--submitter", submitter.address.checksummed,
            "--token", token.checksummed, "--token-abi", try TestContracts.artifact("TestToken").url.path,
        ]
        let result = try await Web3ClientTests.runClient(
            .init(arguments: arguments, token: ServeTests.token), script: "web3_calls.py", hangLimit: .seconds(300))
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == [
                "ok safe batch: supported; approve and transfer in one execTransaction by the submitter, status 200, "
                    + "sent once"
            ], "\(result)")
        #expect(await service.stop() == 0)
    }
}
