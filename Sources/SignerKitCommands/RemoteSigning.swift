import EthereumPrimitives
import RemoteSigner
import SignerKit

/// One request signed by the remote signer the key-source flags name, through a dispatcher that verifies the
/// answer before it is printed: how `message sign`, `typed-data sign` and `tx sign` use `--remote-signer` (a
/// remote signs requests, not the digests these commands sign with a key).
enum RemoteSigning {
    /// The verified result of `method` on chain `chain` with the params `params` makes for the remote's
    /// account (`--remote-account`).
    ///
    /// - Throws: 65 naming the remote's failure, or the dispatcher's refusal of its answer.
    static func result(
        _ method: RpcMethod, chain: UInt256, _ options: ParsedOptions, io: any CommandIO,
        params: (Address) -> JSONValue
    ) async throws(CommandFailure) -> String {
        let backend = try await RemoteSignerOptions.backend(options, io: io)
        let chainID: ChainID
        do { chainID = try ChainID(eip155ChainID: chain) } catch { throw .invalidInput("chainId: \(error)") }
        let action = WalletRpcAction(
            chainId: chainID, method: method, params: params(backend.accounts[0]).serialized)
        let dispatcher = RpcDispatcher()
        do { try dispatcher.register(backend) } catch { throw .invalidInput("\(error)") }
        do { return try await dispatcher.sign(actions: [action]).results[0] } catch {
            throw .invalidInput(error.description)
        }
    }
}
