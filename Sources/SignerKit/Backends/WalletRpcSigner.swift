import EthereumPrimitives

/// A backend that handles whole RPC methods — e.g. a hosted wallet that hashes and signs on its side.
///
/// Key backends implement ``PrehashSigner`` instead and are wrapped by ``PrehashBackend``.
public protocol WalletRpcSigner: Sendable {
    /// A short name for errors and logs.
    var name: String { get }
    /// Accounts this backend signs for.
    var accounts: [Address] { get }
    /// Methods it handles.
    var methods: Set<RpcMethod> { get }
    /// Chains it signs on; `nil` means every `eip155` chain.
    var chains: Set<ChainID>? { get }

    /// Produces the result for one validated request. Called only after every action in the
    /// batch passed validation and policies.
    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult
}

extension WalletRpcSigner {
    /// Every `eip155` chain.
    public var chains: Set<ChainID>? { nil }

    /// The type name.
    public var name: String { String(describing: type(of: self)) }
}
