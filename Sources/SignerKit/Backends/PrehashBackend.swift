import EthereumPrimitives
import EthereumTransactions

/// Turns any ``PrehashSigner`` into a whole-method backend: SignerKit does all Ethereum encoding and
/// hashing, the key only signs 32-byte digests. Registered by ``RpcDispatcher/register(_:chains:methods:)``.
///
/// Messages and typed data are signed here. A transaction of a registered key never reaches ``handle(_:)``:
/// the dispatcher's transaction pipeline fills it from the node, reserves its nonce, judges it by the
/// ``FilledTransactionPolicy`` policies, has the key sign its digest, verifies it and, for
/// `eth_sendTransaction`, journals and broadcasts it and follows its receipt (docs/DISPATCHER.md).
public struct PrehashBackend: WalletRpcSigner {
    /// The key.
    public let key: any PrehashSigner
    /// Chains it signs on (`nil`: every eip155 chain).
    public let chains: Set<ChainID>?
    /// Methods it handles.
    public let methods: Set<RpcMethod>
    /// `PrehashBackend(<key type>)` (worked out once: the service counts signatures by backend name).
    public let name: String

    /// Wraps `key`.
    public init(
        _ key: any PrehashSigner, chains: Set<ChainID>? = nil, methods: Set<RpcMethod> = RpcMethod.accountMethods
    ) {
        self.key = key
        self.chains = chains
        self.methods = methods
        name = "PrehashBackend(\(type(of: key)))"
    }

    /// The key's address.
    public var accounts: [Address] { [key.address] }

    /// Signs a message or typed data with the key, or, as the payer of a Ronin sponsored transaction, the payer
    /// hash SignerKit computed from the sender's request.
    ///
    /// - Throws: ``SignerError/unsupportedMethod(_:)`` for a transaction: the dispatcher's pipeline signs
    ///   those (register the key with an ``RpcDispatcher``); ``SignerError/invalidRequest(_:)`` for another
    ///   account; the key's own error.
    public func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        guard request.account == key.address else {
            throw .invalidRequest("account \(request.account) is not this key's address \(key.address)")
        }
        switch request.payload {
        case .personalMessage(_, let digest):
            return .signature(try await key.sign(prehash: digest))
        case .typedData(_, let hashes):
            return .signature(try await key.sign(prehash: hashes.digest))
        case .sponsorship(_, let payerHash):
            return .payerSignature(try await key.sign(prehash: payerHash))
        case .transaction:
            throw .unsupportedMethod("\(request.method.rawValue) outside RpcDispatcher's transaction pipeline")
        }
    }
}

/// A backend whose refusals can be decided from the resolved request alone; the dispatcher asks it
/// while resolving the batch, before any backend is called.
protocol PreflightChecked: Sendable {
    /// Why `request` cannot succeed with this backend, or `nil` when it may be attempted.
    func preflight(_ request: ResolvedRequest) -> DispatchError.Kind?
}

extension PrehashBackend: PreflightChecked {
    /// Refuses what ``handle(_:)`` would only refuse later: a request for another account, an
    /// `eth_sendTransaction` without a node for its chain, and a transaction with missing nonce, gas or
    /// fees that no node can fill (naming the missing fields).
    func preflight(_ request: ResolvedRequest) -> DispatchError.Kind? {
        guard request.account == key.address else {
            return .accountMismatch(field: "account", expected: key.address, actual: request.account)
        }
        guard case .transaction(let transaction, _) = request.payload else { return nil }
        if transaction.type == .roninSponsored, let incomplete = TransactionPipeline.sponsoredIncomplete(transaction) {
            return incomplete
        }
        guard request.node == nil else { return nil }
        if !transaction.missingFields.isEmpty {
            return .incompleteTransaction(
                missing: transaction.missingFields, chain: request.action.chainId.description)
        }
        if request.method == .sendTransaction { return .noNode(request.action.chainId.description) }
        return nil
    }
}
