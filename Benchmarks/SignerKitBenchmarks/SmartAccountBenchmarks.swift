import EthereumPrimitives
import EthereumRPC
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport

/// Names of the smart-account cases.
enum SmartAccountCase {
    /// The EOA check as it was before smart accounts: `SignatureCheck.verify` (low-s, recover, compare).
    static let eoaDirect = "EOA signature: SignatureCheck.verify"
    /// The same signature through `AccountSignatureVerifier.verify(_:node:)` with a node given: the EOA path
    /// must cost the same (the node traps if it is ever called).
    static let eoaThroughVerifier = "EOA signature: AccountSignatureVerifier, node given"
    /// One ERC-1271 verification of a Safe 1-of-1's signature: one `eth_call` over loopback HTTP to the
    /// local py-evm node (scripts/evm-node/server.py), the Safe's `isValidSignature` executed by py-evm.
    static let erc1271One = "ERC-1271: 1 Safe signature, local py-evm node"
    /// Ten Safe signatures in one verification: one JSON-RPC batch.
    static let erc1271Ten = "ERC-1271: 10 Safe signatures, one batch"
}

/// A node that must never be asked: the EOA path makes no node call.
private struct TrappingNode: EthereumNode {
    func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        fatalError("smart-account benchmarks: the EOA path called the node (\(method))")
    }
}

/// A local EVM with a deployed 1-of-1 Safe and ten claims it accepts; started on first use (only when a
/// smart-account ERC-1271 case is selected), kept for the process.
private struct SafeBench: Sendable {
    let evm: LocalEVM
    let client: JSONRPCClient
    let claims: [AccountSignatureClaim]
}

private let safeBench: SafeBench = runBlocking { () -> SafeBench in
    do {
        let owner = try TestKeys.key(TestKeys.betaHex)
        let deployer = try TestKeys.key(TestKeys.alphaHex)
        let evm = try await LocalEVM.start(fund: [deployer.address], chainId: 8453)
        let deployment = try await SafeDeployment.deploy(
            on: evm, deployerKeyHex: TestKeys.alphaHex,
            safes: [.init(owners: [owner.address], threshold: 1, saltNonce: 1)])
        let safe = deployment.safes[0].address
        let claims = (0..<10).map { index in
            let digest = PersonalMessage.digest(Array("order \(index)".utf8))
            let signature = owner.sign(prehash: SafeMessage(hash: digest).digest(safe: safe, chainId: 8453))
            return AccountSignatureClaim(account: safe, digest: digest, signature: signature.rsv)
        }
        return SafeBench(evm: evm, client: JSONRPCClient(url: evm.url), claims: claims)
    } catch {
        fatalError("smart-account benchmarks: cannot start the local EVM with a Safe: \(error)")
    }
}

/// The EOA path of smart-account verification against the EOA check it must equal, and the cost of asking a
/// contract account (ERC-1271) over the local node.
///
/// - "EOA signature: AccountSignatureVerifier, node given" vs "EOA signature: SignatureCheck.verify": ≈ 1×
///   (the verifier runs the same check first and never calls the node for a valid EOA signature).
/// - "ERC-1271: 1 Safe signature …" vs the EOA check: what one `eth_call` round trip and the Safe's EVM execution
///   cost in units of one EOA check (py-evm is slow; a production node answers faster, the round trip stays).
/// - "ERC-1271: 10 …, one batch" vs "ERC-1271: 1 …" with 10 units: the per-signature cost inside one batch.
func smartAccountBenchmarks() -> [Benchmark] {
    let key: PrivateKey
    do { key = try TestKeys.key(TestKeys.gammaHex) } catch { fatalError("smart-account benchmarks: \(error)") }
    let digest = PersonalMessage.digest(Array("Pay 5 USDC to Example Shop".utf8))
    let signature = key.sign(prehash: digest)
    let claim = AccountSignatureClaim(account: key.address, digest: digest, signature: signature.rsv)
    let trapping = TrappingNode()
    let account = key.address
    return [
        Benchmark(name: SmartAccountCase.eoaDirect, group: "smart-account") { iterations in
            var valid = 0
            for _ in 0..<iterations {
                let parsed = try? RecoverableSignature(rsv: claim.signature)
                if let parsed, (try? SignatureCheck.verify(parsed, over: digest, by: account)) != nil { valid += 1 }
            }
            blackHole(valid)
        },
        Benchmark(
            name: SmartAccountCase.eoaThroughVerifier, group: "smart-account", baseline: SmartAccountCase.eoaDirect
        ) { iterations in
            let valid = runBlocking { () -> Int in
                var valid = 0
                for _ in 0..<iterations {
                    if (try? await AccountSignatureVerifier.verify([claim], node: trapping))?.first?.isValid == true {
                        valid += 1
                    }
                }
                return valid
            }
            blackHole(valid)
        },
        Benchmark(name: SmartAccountCase.erc1271One, group: "smart-account", baseline: SmartAccountCase.eoaDirect) {
            iterations in
            let bench = safeBench
            let valid = runBlocking { () -> Int in
                var valid = 0
                for index in 0..<iterations {
                    let one = [bench.claims[index % bench.claims.count]]
                    if (try? await AccountSignatureVerifier.verify(one, node: bench.client))?.first?.isValid == true {
                        valid += 1
                    }
                }
                return valid
            }
            guard valid == iterations else { fatalError("smart-account benchmarks: a Safe signature did not verify") }
            blackHole(valid)
        },
        Benchmark(
            name: SmartAccountCase.erc1271Ten, group: "smart-account", baseline: SmartAccountCase.erc1271One,
            unitsPerIteration: 10
        ) { iterations in
            let bench = safeBench
            let valid = runBlocking { () -> Int in
                var valid = 0
                for _ in 0..<iterations {
                    let verdicts = (try? await AccountSignatureVerifier.verify(bench.claims, node: bench.client)) ?? []
                    valid += verdicts.filter(\.isValid).count
                }
                return valid
            }
            guard valid == 10 * iterations else { fatalError("smart-account benchmarks: a Safe signature failed") }
            blackHole(valid)
        },
    ]
}
