import EthereumPrimitives
import Foundation

/// SignerKit's own ERC-7821 batch executor (`Contracts/BatchExecutor.vy`) deployed on a ``LocalEVM``: the
/// delegate an EOA names in an EIP-7702 authorization so that a transaction to itself carrying
/// `execute(mode, abi.encode(calls))` runs the calls atomically.
public struct BatchExecutorDeployment: Sendable {
    /// Where the executor lives: the address an authorization delegates to.
    public let address: Address
    /// Gas the creation used.
    public let gasUsed: UInt64

    /// Deploys the committed executor artifact on `evm`, paid by the funded key `deployerKeyHex`.
    public static func deploy(on evm: LocalEVM, deployerKeyHex: String) async throws -> BatchExecutorDeployment {
        let (address, gasUsed) = try await TestContracts.deploy(
            "BatchExecutor", on: evm, deployerKeyHex: deployerKeyHex)
        return BatchExecutorDeployment(address: address, gasUsed: gasUsed)
    }
}
