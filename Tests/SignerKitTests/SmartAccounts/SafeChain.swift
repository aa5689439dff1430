import EthereumPrimitives
import EthereumRPC
import SignerKit
import SignerKitTestSupport
import SoftwareSigner

/// A local EVM on chain 8453 with real Safe v1.4.1 contracts (``SafeDeployment``), shared by the smart-account
/// suites of this process: Safe 0 is 1-of-1 (beta), Safe 1 is 2-of-3 (beta, gamma, delta), Safes 2 and 3 are
/// counterfactual 1-of-1 (beta) and 2-of-3 (beta, gamma), not deployed. A test that deploys a counterfactual
/// Safe (the web3.py cross-check of ERC-6492) owns it: Safe 2 belongs to `SafeAccountTests`' ERC-6492 test.
struct SafeChain: Sendable {
    let evm: LocalEVM
    let client: JSONRPCClient
    let chain: ChainID
    let deployment: SafeDeployment
    /// Funded; pays for deployments.
    let deployerHex = TestKeys.alphaHex
    let beta: SoftwareKeySigner
    let gamma: SoftwareKeySigner
    let delta: SoftwareKeySigner

    var oneOfOne: SafeDeployment.Safe { deployment.safes[0] }
    var twoOfThree: SafeDeployment.Safe { deployment.safes[1] }
    var counterfactual: SafeDeployment.Safe { deployment.safes[2] }
    var counterfactualTwoOfThree: SafeDeployment.Safe { deployment.safes[3] }

    /// The chain, started and deployed once per test process.
    static func shared() async throws -> SafeChain { try await Cache.shared.chain() }

    private actor Cache {
        static let shared = Cache()
        private var started: Task<SafeChain, any Error>?

        func chain() async throws -> SafeChain {
            if let started { return try await started.value }
            let task = Task { try await SafeChain.start() }
            started = task
            return try await task.value
        }
    }

    private static func start() async throws -> SafeChain {
        let deployer = try TestKeys.signer(TestKeys.alphaHex)
        let evm = try await LocalEVM.start(fund: [deployer.address], chainId: 8453)
        let client = JSONRPCClient(url: evm.url)
        let beta = try TestKeys.signer(TestKeys.betaHex)
        let gamma = try TestKeys.signer(TestKeys.gammaHex)
        let delta = try TestKeys.signer(TestKeys.deltaHex)
        let deployment = try await SafeDeployment.deploy(
            on: evm, deployerKeyHex: TestKeys.alphaHex,
            safes: [
                .init(owners: [beta.address], threshold: 1, saltNonce: 1),
                .init(owners: [beta.address, gamma.address, delta.address], threshold: 2, saltNonce: 2),
                .init(owners: [beta.address], threshold: 1, saltNonce: 3, deploy: false),
                .init(owners: [beta.address, gamma.address], threshold: 2, saltNonce: 4, deploy: false),
            ])
        return SafeChain(
            evm: evm, client: client, chain: ChainID(eip155: 8453), deployment: deployment, beta: beta, gamma: gamma,
            delta: delta)
    }

    /// A dispatcher with this chain's node.
    func dispatcher() -> RpcDispatcher { RpcDispatcher(nodes: [chain: client]) }

    /// The backend of `safe` with these signing owners and threshold (a counterfactual Safe's answers wrapped).
    func signer(_ safe: SafeDeployment.Safe, owners: [any PrehashSigner], threshold: Int) throws -> SafeAccountSigner {
        let deployment =
            safe.deployed
            ? nil : SafeAccountSigner.Deployment(factory: safe.factory, factoryCalldata: safe.factoryCalldata)
        return try SafeAccountSigner(safe: safe.address, owners: owners, threshold: threshold, deployment: deployment)
    }

    /// Bytes of a contract account's result.
    static func bytes(_ result: ActionResult) throws -> [UInt8] { try Hex.decode(result.resultString) }

    /// Whether `address` has code on the chain now.
    func hasCode(_ address: Address) async throws -> Bool {
        let code = try await client.call(
            method: "eth_getCode", params: [.string(address.checksummed), .string("latest")])
        return (code.stringValue ?? "0x") != "0x"
    }
}
