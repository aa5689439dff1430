import EthereumPrimitives

/// A Safe smart account (v1.4.1 with its `CompatibilityFallbackHandler`) as a backend: its owners are any
/// ``PrehashSigner``s (software keys, PKCS#11, KMS), and it answers `personal_sign` and
/// `eth_signTypedData_v4` for the Safe with the owners' signatures, as the Safe's ERC-1271
/// `isValidSignature` checks them.
///
/// For each request SignerKit computes the digest (EIP-191 or EIP-712) as for any account, wraps it in the
/// Safe's ``SafeMessage`` under the Safe's domain (chain id, Safe address), and has the first ``threshold``
/// owners, in ascending address order (the order the Safe requires), sign that hash; the result is their
/// 65-byte signatures concatenated (``ActionResult/contractSignature(_:)``). For a Safe not deployed yet,
/// give its ``Deployment`` and the result is the ERC-6492 wrapper around them. The dispatcher verifies
/// the result by asking the Safe through the node of the action's chain before it enters a bundle.
///
/// Single transactions through a Safe are not signed here (`eth_sendTransaction` is refused). With a
/// ``BatchExecution`` the Safe executes EIP-5792 batches by itself (``AtomicBatchAccount``): the owners sign a
/// ``SafeTransaction`` that delegate-calls `MultiSendCallOnly` with the calls, and the submitter, a key registered
/// with the dispatcher, sends its `execTransaction`.
///
/// ```swift
/// let safe = try SafeAccountSigner(safe: safeAddress, owners: [alice, bob], threshold: 2)
/// try dispatcher.register(safe)
/// ```
public struct SafeAccountSigner: AtomicBatchAccount {
    /// How the Safe runs batches of calls: through `MultiSendCallOnly` (v1.4.1), in an `execTransaction` that
    /// `submitter` sends.
    public struct BatchExecution: Sendable, Hashable {
        /// The `MultiSendCallOnly` contract the Safe delegate-calls.
        public let multiSendCallOnly: Address
        /// The EOA that sends `execTransaction` and pays its gas (a key registered with the dispatcher).
        public let submitter: Address

        /// Batches through `multiSendCallOnly`, sent by `submitter`.
        public init(multiSendCallOnly: Address, submitter: Address) {
            self.multiSendCallOnly = multiSendCallOnly
            self.submitter = submitter
        }
    }

    /// How a Safe that is not deployed yet gets deployed: the factory call ERC-6492 wraps signatures with.
    public struct Deployment: Sendable, Hashable {
        /// The proxy factory (`SafeProxyFactory`).
        public let factory: Address
        /// Its `createProxyWithNonce(singleton, initializer, saltNonce)` call that deploys this Safe.
        public let factoryCalldata: [UInt8]

        /// A deployment by `factory` with `factoryCalldata`.
        public init(factory: Address, factoryCalldata: [UInt8]) {
            self.factory = factory
            self.factoryCalldata = factoryCalldata
        }
    }

    /// The Safe's address.
    public let safe: Address
    /// The owners that sign, ascending by address.
    public let owners: [any PrehashSigner]
    /// How many owner signatures each answer carries (the Safe's threshold).
    public let threshold: Int
    /// The factory call of a counterfactual Safe (answers are then ERC-6492 wrapped), else `nil`.
    public let deployment: Deployment?
    /// Chains it signs on (`nil`: every eip155 chain).
    public let chains: Set<ChainID>?
    /// How it runs batches of calls, or `nil`: no batches.
    public let batchExecution: BatchExecution?

    /// A Safe at `safe` whose `owners` sign, `threshold` of them per answer.
    ///
    /// - Throws: ``SignerError/invalidRequest(_:)`` naming the problem: no owners, a repeated owner, or a
    ///   threshold below 1 or above the number of owners.
    public init(
        safe: Address, owners: [any PrehashSigner], threshold: Int, deployment: Deployment? = nil,
        chains: Set<ChainID>? = nil, batchExecution: BatchExecution? = nil
    ) throws(SignerError) {
        guard !owners.isEmpty else { throw .invalidRequest("owners: a Safe needs at least one owner") }
        let sorted = owners.sorted { $0.address.bytes.lexicographicallyPrecedes($1.address.bytes) }
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where earlier.address == later.address {
            throw .invalidRequest("owners: \(later.address.checksummed) is given twice")
        }
        guard (1...owners.count).contains(threshold) else {
            throw .invalidRequest("threshold: \(threshold) is not between 1 and the \(owners.count) owners")
        }
        self.safe = safe
        self.owners = sorted
        self.threshold = threshold
        self.deployment = deployment
        self.chains = chains
        self.batchExecution = batchExecution
    }

    /// `SafeAccountSigner(0x…)`.
    public var name: String { "SafeAccountSigner(\(safe.checksummed))" }
    /// The Safe.
    public var accounts: [Address] { [safe] }
    /// `personal_sign` and `eth_signTypedData_v4`.
    public var methods: Set<RpcMethod> { [.personalSign, .signTypedDataV4] }

    /// What the owners sign for `request`: the Safe's ``SafeMessage`` digest of SignerKit's digest.
    ///
    /// - Throws: ``SignerError/invalidRequest(_:)`` for another account, ``SignerError/unsupportedMethod(_:)``
    ///   for a transaction.
    public func safeMessageDigest(for request: ResolvedRequest) throws(SignerError) -> Digest32 {
        guard request.account == safe else {
            throw .invalidRequest("account \(request.account.checksummed) is not this Safe \(safe.checksummed)")
        }
        let digest: Digest32
        switch request.payload {
        case .personalMessage(_, let messageDigest): digest = messageDigest
        case .typedData(_, let hashes): digest = hashes.digest
        case .transaction, .sponsorship:
            throw .unsupportedMethod("\(request.method.rawValue) through a Safe (only messages and typed data)")
        }
        return SafeMessage(hash: digest).digest(safe: safe, chainId: request.chainId)
    }

    /// The owners' signatures over the Safe's message, ascending by owner, ERC-6492 wrapped for a Safe
    /// not deployed yet.
    public func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        let digest = try safeMessageDigest(for: request)
        var signatures: [UInt8] = []
        signatures.reserveCapacity(65 * threshold)
        for owner in owners.prefix(threshold) {
            signatures += try await owner.sign(prehash: digest).rsv
        }
        guard let deployment else { return .contractSignature(signatures) }
        let wrapper = ERC6492Wrapper(
            factory: deployment.factory, factoryCalldata: deployment.factoryCalldata, signature: signatures)
        return .contractSignature(wrapper.encoded)
    }

    /// The submitter of ``batchExecution``.
    public var batchSubmitter: Address? { batchExecution?.submitter }

    /// `execTransaction` of the ``SafeTransaction`` running `calls` through `MultiSendCallOnly` at the Safe's
    /// current nonce (`nonce()` at `latest`), signed by the first ``threshold`` owners, sent by the submitter.
    ///
    /// - Throws: ``SignerError/unsupportedMethod(_:)`` without a ``batchExecution``, `invalidRequest` for another
    ///   account, a counterfactual Safe (deploy it first) or a node answer that is not a nonce.
    public func batchTransaction(
        _ calls: [ERC7821Batch.Call], account: Address, chainId: UInt256, node: any EthereumNode
    ) async throws(SignerError) -> TransactionRequest {
        guard let batchExecution else { throw .unsupportedMethod("batches through \(name) (no batchExecution)") }
        guard account == safe else {
            throw .invalidRequest("account \(account.checksummed) is not this Safe \(safe.checksummed)")
        }
        guard deployment == nil else {
            throw .invalidRequest("the Safe \(safe.checksummed) is counterfactual: deploy it before batching")
        }
        let call = JSONValue.object(
            JSONObject([
                "to": .string(safe.lowercased), "data": .string(Hex.encode(SafeTransaction.nonceSelector)),
            ]))
        let answer: JSONValue
        do throws(NodeError) {
            answer = try await node.call(method: "eth_call", params: [call, .string("latest")])
        } catch {
            throw .backendFailure("node: the Safe's nonce(): \(error)")
        }
        guard let text = answer.stringValue, let bytes = try? Hex.decode(text), bytes.count == 32,
            let nonce = UInt256(bigEndian: bytes)
        else { throw .invalidRequest("the Safe's nonce() answered \(answer.kindName), not a word") }
        let transaction = SafeTransaction(batch: calls, multiSend: batchExecution.multiSendCallOnly, nonce: nonce)
        let digest = transaction.digest(safe: safe, chainId: chainId)
        var signatures: [UInt8] = []
        for owner in owners.prefix(threshold) { signatures += try await owner.sign(prehash: digest).rsv }
        return TransactionRequest(
            type: .eip1559, from: batchExecution.submitter, to: safe,
            data: transaction.execTransactionCalldata(signatures: signatures), chainId: chainId)
    }

    /// What the user is shown for `request`: the Safe, its signing owners and threshold, beside the
    /// request's own preview (token, amount, spender…).
    public func preview(_ request: ResolvedRequest) -> SafeSigningPreview {
        SafeSigningPreview(
            safe: safe, owners: owners.prefix(threshold).map(\.address), threshold: threshold,
            counterfactual: deployment != nil, request: request.preview)
    }
}

/// A Safe backend's preview of one request: who signs, for which Safe, and what the request does.
public struct SafeSigningPreview: Sendable, CustomStringConvertible {
    /// The Safe the answer is for.
    public let safe: Address
    /// The owners whose signatures the answer carries, ascending.
    public let owners: [Address]
    /// How many owners sign.
    public let threshold: Int
    /// Whether the Safe is not deployed yet (the answer is ERC-6492 wrapped).
    public let counterfactual: Bool
    /// The request's own preview.
    public let request: SigningPreview

    /// `action[0] personal_sign for Safe 0x… (not deployed yet), signed by 2 of its owners: 0x…, 0x…`.
    public var description: String {
        let state = counterfactual ? " (not deployed yet)" : ""
        let signers = owners.map(\.checksummed).joined(separator: ", ")
        return "action[\(request.index)] \(request.method.rawValue) for Safe \(safe.checksummed)\(state), "
            + "signed by \(threshold) of its owners: \(signers)"
    }
}
