import EthereumPrimitives
import EthereumTransactions

/// Turns any ``PrehashSigner`` into a whole-method backend: SignerKit does all Ethereum encoding and
/// hashing, the key only signs 32-byte digests. Registered by ``RpcDispatcher/register(_:chains:methods:)``.
public struct PrehashBackend: WalletRpcSigner {
    /// The key.
    public let key: any PrehashSigner
    /// Chains it signs on (`nil`: every eip155 chain).
    public let chains: Set<ChainID>?
    /// Methods it handles.
    public let methods: Set<RpcMethod>
    /// How long `eth_sendTransaction` waits for a receipt; `nil` returns right after broadcast.
    public let receiptTimeout: Duration?

    /// Wraps `key`.
    public init(
        _ key: any PrehashSigner, chains: Set<ChainID>? = nil, methods: Set<RpcMethod> = Set(RpcMethod.allCases),
        receiptTimeout: Duration? = nil
    ) {
        self.key = key
        self.chains = chains
        self.methods = methods
        self.receiptTimeout = receiptTimeout
    }

    /// The key's address.
    public var accounts: [Address] { [key.address] }

    /// `PrehashBackend(<key type>)`.
    public var name: String { "PrehashBackend(\(type(of: key)))" }

    /// Signs (and for `eth_sendTransaction` broadcasts) one request.
    public func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        guard request.account == key.address else {
            throw .invalidRequest("account \(request.account) is not this key's address \(key.address)")
        }
        switch request.payload {
        case .personalMessage(_, let digest):
            return .signature(try await key.sign(prehash: digest))
        case .typedData(_, let hashes):
            return .signature(try await key.sign(prehash: hashes.digest))
        case .transaction(let transactionRequest, let feesOpen):
            let account = request.account
            let node = request.node
            let nonceOffset = request.pendingNonceOffset
            let filled = try await Self.shielded { () async throws(SignerError) -> TransactionRequest in
                try await TransactionFiller.fill(
                    transactionRequest, feesOpen: feesOpen, from: account, node: node, nonceOffset: nonceOffset)
            }
            let transaction: Transaction
            do { transaction = try filled.complete(chainId: request.chainId) } catch {
                throw .invalidRequest("transaction: \(error)")
            }
            let signed = try await key.signTransaction(transaction)
            guard request.method == .sendTransaction else { return .rawTransaction(signed.rawTransaction) }
            guard let node else {
                throw .invalidRequest("eth_sendTransaction needs a node for \(request.action.chainId)")
            }
            // Another action of the batch failed while this one was being filled and signed: do not broadcast.
            guard !Task.isCancelled else { throw .backendFailure("not broadcast: the batch was cancelled") }
            let raw = signed.rawTransaction
            let hash = try await Self.shielded { () async throws(SignerError) -> Bytes32 in
                do { return try await node.sendRawTransaction(raw) } catch { throw .backendFailure("\(error)") }
            }
            guard hash == signed.hash else {
                throw .verificationFailed("node returned hash \(hash), signed transaction hash is \(signed.hash)")
            }
            if let receiptTimeout {
                _ = try await Self.shielded { () async throws(SignerError) -> TransactionReceipt in
                    do {
                        return try await node.waitForReceipt(
                            hash, timeout: receiptTimeout, pollInterval: .milliseconds(200))
                    } catch {
                        throw .backendFailure("\(error)")
                    }
                }
            }
            return .transactionHash(hash)
        }
    }
}

extension PrehashBackend {
    /// Runs node calls in an unstructured task, so cancelling the calling task (the dispatcher cancels the
    /// rest of a batch when one action fails) does not cancel them mid-request.
    ///
    /// On Linux, cancelling a task suspended in `URLSession.data(for:)` can deadlock swift-corelibs-foundation
    /// (the cancellation handler calls `URLSessionTask.cancel()`, which waits on the session queue, while that
    /// queue waits for the task's status lock to resume it). Node calls are short and bounded by the client's
    /// timeout; ``handle(_:)`` checks for cancellation between them instead.
    static func shielded<T: Sendable>(
        _ body: @escaping @Sendable () async throws(SignerError) -> T
    ) async throws(SignerError) -> T {
        let outcome = await Task { () async -> Result<T, SignerError> in
            let result: Result<T, SignerError>
            do throws(SignerError) { result = .success(try await body()) } catch { result = .failure(error) }
            return result
        }.value
        return try outcome.get()
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
    /// fees that no node can fill.
    func preflight(_ request: ResolvedRequest) -> DispatchError.Kind? {
        guard request.account == key.address else {
            return .accountMismatch(field: "account", expected: key.address, actual: request.account)
        }
        guard case .transaction(let transaction, _) = request.payload, request.node == nil else { return nil }
        if request.method == .sendTransaction || !transaction.missingFields.isEmpty {
            return .noNode(request.action.chainId.description)
        }
        return nil
    }
}
