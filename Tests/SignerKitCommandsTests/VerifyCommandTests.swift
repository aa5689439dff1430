import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// `signerkit verify message|typed-data` and `siwe verify --rpc-url` against real Safe v1.4.1 contracts on a local
/// EVM: the exact output contract (one stdout line, exit 0 / 1 / 65).
@Suite("verify message / typed-data, siwe verify --rpc-url")
struct VerifyCommandTests {
    /// One node with a 1-of-1 Safe (owner beta) and a counterfactual 1-of-1 Safe (owner gamma), per process.
    struct Chain: Sendable {
        let evm: LocalEVM
        let deployment: SafeDeployment
        let owner: PrivateKey
        let counterfactualOwner: PrivateKey
        var url: String { evm.url.absoluteString }
        var safe: Address { deployment.safes[0].address }
        var counterfactual: SafeDeployment.Safe { deployment.safes[1] }

        static func shared() async throws -> Chain { try await Cache.shared.chain() }

        private actor Cache {
            static let shared = Cache()
            private var started: Task<Chain, any Error>?

            func chain() async throws -> Chain {
                if let started { return try await started.value }
                let task = Task { () async throws -> Chain in
                    let deployer = try TestKeys.key(TestKeys.alphaHex)
                    let owner = try TestKeys.key(TestKeys.betaHex)
                    let counterfactualOwner = try TestKeys.key(TestKeys.gammaHex)
                    let evm = try await LocalEVM.start(fund: [deployer.address], chainId: 8453)
                    let deployment = try await SafeDeployment.deploy(
                        on: evm, deployerKeyHex: TestKeys.alphaHex,
                        safes: [
                            .init(owners: [owner.address], threshold: 1, saltNonce: 11),
                            .init(owners: [counterfactualOwner.address], threshold: 1, saltNonce: 12, deploy: false),
                        ])
                    return Chain(
                        evm: evm, deployment: deployment, owner: owner, counterfactualOwner: counterfactualOwner)
                }
                started = task
                return try await task.value
            }
        }

        /// The 1-of-1 Safe's signature over `digest` (its owner's, over the SafeMessage hash).
        func safeSignature(_ digest: Digest32) -> String {
            owner.sign(prehash: SafeMessage(hash: digest).digest(safe: safe, chainId: 8453)).hex
        }
    }

    static let message = "Pay 5 USDC to Example Shop"
    static var digest: Digest32 { PersonalMessage.digest(Array(message.utf8)) }

    @Test("an EOA signature: valid eoa without and with --rpc-url; another account's: invalid, exit 1")
    func eoa() async throws {
        let chain = try await Chain.shared()
        let signature = chain.owner.sign(prehash: Self.digest).hex
        let base = ["verify", "message", "--text", Self.message, "--signature", signature, "--address"]
        expectSuccess(await signerkit(base + [chain.owner.address.checksummed]), ["valid eoa"])
        expectSuccess(await signerkit(base + [chain.owner.address.checksummed, "--rpc-url", chain.url]), ["valid eoa"])
        let other = await signerkit(base + [chain.counterfactualOwner.address.checksummed])
        #expect(other.status == 1 && other.stdoutLines == ["invalid"], "\(other)")
        #expect(other.stderrLines.count == 1 && other.stderr.contains("only an EOA"), "\(other)")
    }

    @Test("a Safe's signature: valid erc1271 with --rpc-url, invalid without; wrong message invalid")
    func safeMessage() async throws {
        let chain = try await Chain.shared()
        let signature = chain.safeSignature(Self.digest)
        let base = ["verify", "message", "--text", Self.message, "--address", chain.safe.checksummed]
        expectSuccess(
            await signerkit(base + ["--signature", signature, "--rpc-url", chain.url]), ["valid erc1271"])
        let offline = await signerkit(base + ["--signature", signature])
        #expect(offline.status == 1 && offline.stdoutLines == ["invalid"] && offline.stderrLines.count == 1)
        let wrong = await signerkit(
            [
                "verify", "message", "--hex", "0x01", "--address", chain.safe.checksummed, "--signature", signature,
                "--rpc-url", chain.url,
            ])
        #expect(wrong.status == 1 && wrong.stdoutLines == ["invalid"], "\(wrong)")
        #expect(wrong.stderr.contains("reverted"), "\(wrong)")
    }

    @Test("a Safe's typed-data signature: valid erc1271")
    func safeTypedData() async throws {
        let chain = try await Chain.shared()
        let json = """
            {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],\
            "Order":[{"name":"id","type":"uint256"}]},"primaryType":"Order",\
            "domain":{"name":"Shop","chainId":8453},"message":{"id":42}}
            """
        let digest = try TypedData(jsonText: json).digest()
        let directory = try TemporaryDirectory()
        let file = try directory.write("order.json", json)
        expectSuccess(
            await signerkit(
                [
                    "verify", "typed-data", file, "--address", chain.safe.checksummed, "--signature",
                    chain.safeSignature(digest), "--rpc-url", chain.url,
                ]), ["valid erc1271"])
    }

    @Test("a counterfactual Safe's ERC-6492 signature: valid erc6492")
    func counterfactual() async throws {
        let chain = try await Chain.shared()
        let safe = chain.counterfactual
        let inner = chain.counterfactualOwner.sign(
            prehash: SafeMessage(hash: Self.digest).digest(safe: safe.address, chainId: 8453))
        let wrapped = ERC6492Wrapper(factory: safe.factory, factoryCalldata: safe.factoryCalldata, signature: inner.rsv)
        expectSuccess(
            await signerkit(
                [
                    "verify", "message", "--text", Self.message, "--address", safe.address.checksummed, "--signature",
                    Hex.encode(wrapped.encoded), "--rpc-url", chain.url,
                ]), ["valid erc6492"])
    }

    @Test("bad input and an unreachable node exit 65 with one error line")
    func errors() async throws {
        let chain = try await Chain.shared()
        let signature = chain.safeSignature(Self.digest)
        let base = ["verify", "message", "--text", Self.message, "--signature", signature]
        expectInvalid(await signerkit(base + ["--address", "0x1234"]), "--address")
        expectInvalid(
            await signerkit([
                "verify", "message", "--text", "x", "--address", chain.safe.checksummed, "--signature", "0xzz",
            ]),
            "--signature")
        let refusing = try RefusingPort()
        expectInvalid(
            await signerkit(
                base + ["--address", chain.safe.checksummed, "--rpc-url", "http://127.0.0.1:\(refusing.port)"]),
            "--rpc-url")
    }

    @Test("siwe verify --rpc-url: a Safe's sign-in verifies through ERC-1271 and prints the Safe")
    func siweForSafe() async throws {
        let chain = try await Chain.shared()
        let message = try SignInMessage(
            domain: "shop.example", address: chain.safe, uri: "https://shop.example", chainId: 8453,
            nonce: "n0nce4safe", issuedAt: try RFC3339DateTime("2026-12-01T10:00:00Z"))
        let directory = try TemporaryDirectory()
        let file = try directory.write("siwe.txt", message.text)
        let signature = chain.safeSignature(message.personalSignDigest)
        let arguments = [
            "siwe", "verify", "--message-file", file, "--signature", signature, "--domain", "shop.example",
        ]
        expectSuccess(await signerkit(arguments + ["--rpc-url", chain.url]), [chain.safe.checksummed])
        expectInvalid(await signerkit(arguments), "SIWE check signature failed")
    }
}
