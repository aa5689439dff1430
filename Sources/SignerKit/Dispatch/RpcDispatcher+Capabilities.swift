import EthereumPrimitives

extension RpcDispatcher {
    /// EIP-5792's capabilities of `account` on each chain: what `wallet_getCapabilities` answers.
    ///
    /// `atomic` is, per chain:
    /// - ``AtomicCapability/supported`` when the backend that sends the account's transactions on the chain
    ///   finds the account's code (`eth_getCode` at `latest` on the chain's node) to be an EIP-7702
    ///   delegation designator `0xef0100 ‖ delegate` whose delegate the dispatcher's ``AllowedDelegates``
    ///   policy allows on that chain, and the account answers ERC-7821's `supportsExecutionMode` for the
    ///   single-batch mode with true (`eth_call`);
    /// - ``AtomicCapability/supported`` also for a deployed smart account whose backend executes batches by
    ///   itself (``AtomicBatchAccount``, e.g. a ``SafeAccountSigner`` with a batch execution) when its submitter
    ///   is registered to send transactions on the chain;
    /// - ``AtomicCapability/ready`` when that backend is a registered key (it can sign an EIP-7702
    ///   authorization), the account has no code, and the policy allows a delegate on the chain that answers
    ///   `supportsExecutionMode` with true (a batch executor);
    /// - ``AtomicCapability/unsupported`` otherwise: no backend sends the account's transactions on the
    ///   chain, no node for it, a backend that cannot sign authorizations, no ``AllowedDelegates`` policy or
    ///   none of its delegates allowed or executing batches, contract code, or a delegation to a delegate the
    ///   policy does not allow or that does not execute batches. No registered backend executes a batch of transactions by itself today (the Safe backend
    ///   signs messages only), so no answer comes from the backend alone.
    ///
    /// - Parameters:
    ///   - account: the account asked about.
    ///   - chains: the chains to answer for; `nil`: every chain the dispatcher has a node for or a
    ///     registration of the account names.
    ///   - deadline: the latest instant the node calls may last (the caller's deadline when earlier).
    /// - Throws: ``CapabilitiesError/unknownAccount(_:)`` when no backend is registered for `account`,
    ///   ``CapabilitiesError/unsupportedChain(_:)`` for a chain that is not `eip155`, and
    ///   ``CapabilitiesError/node(_:_:)`` when a chain's node fails or answers something that is not code.
    public func capabilities(
        of account: Address, chains: [ChainID]? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws(CapabilitiesError) -> [ChainID: AccountCapabilities] {
        let registrations = registrations(of: account)
        guard !registrations.isEmpty else { throw .unknownAccount(account) }
        let asked = chains ?? Array(Set(nodes.keys).union(registrations.compactMap(\.chains).joined()))
        var chainIds: [(chain: ChainID, id: UInt256)] = []
        for chain in asked {
            guard chain.isEIP155, let id = chain.eip155ChainID else { throw .unsupportedChain(chain) }
            chainIds.append((chain, id))
        }
        let result = await CallerDeadline.within(deadline, on: configuration.clock) {
            () async -> Result<[ChainID: AccountCapabilities], CapabilitiesError> in
            var answers: [ChainID: AccountCapabilities] = [:]
            for (chain, id) in chainIds {
                do throws(CapabilitiesError) {
                    answers[chain] = AccountCapabilities(atomic: try await self.atomic(of: account, on: chain, id: id))
                } catch {
                    return .failure(error)
                }
            }
            return .success(answers)
        }
        return try result.get()
    }

    /// The `atomic` state of `account` on `chain` (EIP-155 id `id`); see
    /// ``capabilities(of:chains:deadline:)``.
    private func atomic(of account: Address, on chain: ChainID, id: UInt256) async throws(CapabilitiesError)
        -> AtomicCapability
    {
        do throws(NodeError) {
            switch try await atomicRoute(of: account, on: chain, id: id) {
            case .supported, .smartAccount: return .supported
            case .ready: return .ready
            case .unsupported: return .unsupported
            }
        } catch {
            throw .node(chain, error)
        }
    }

    /// How `account` could run a batch atomically on `chain`, from its code and the policy: `supported` when it
    /// is delegated to an allowed delegate and executes ERC-7821's single-batch mode, `ready` (with the delegate
    /// to authorize) when it is a key without code and an allowed delegate on the chain executes that mode, else
    /// `unsupported`.
    func atomicRoute(of account: Address, on chain: ChainID, id: UInt256) async throws(NodeError) -> AtomicRoute {
        guard let node = nodes[chain] else { return .unsupported }
        if let smartAccount = atomicBatchAccount(for: account, chain: chain),
            let submitter = smartAccount.batchSubmitter
        {
            // A smart account batching by itself: deployed, and its submitter sends transactions here.
            guard backend(for: submitter, chain: chain, method: .sendTransaction) != nil,
                try await !Self.code(of: account, node: node).isEmpty
            else { return .unsupported }
            return .smartAccount(submitter: submitter)
        }
        guard let backend = backend(for: account, chain: chain, method: .sendTransaction) else { return .unsupported }
        let code = try await Self.code(of: account, node: node)
        let policies = policies.compactMap { $0 as? AllowedDelegates }
        let allowed = { (delegate: Address) in
            !policies.isEmpty && policies.allSatisfy { $0.allows(delegate, chainId: id) }
        }
        if let delegate = Self.delegate(designatedBy: code) {
            guard allowed(delegate), try await Self.executesBatches(account, node: node) else { return .unsupported }
            return .supported
        }
        guard code.isEmpty, backend is PrehashBackend, let policy = policies.first else { return .unsupported }
        // In address order, so every instance picks the same executor.
        for candidate in policy.delegates(chainId: id).filter(allowed).sorted(by: { $0.lowercased < $1.lowercased })
        where try await Self.executesBatches(candidate, node: node) {
            return .ready(delegate: candidate)
        }
        return .unsupported
    }

    /// The code at `address` (`eth_getCode` at `latest`).
    static func code(of address: Address, node: any EthereumNode) async throws(NodeError) -> [UInt8] {
        let method = "eth_getCode"
        let result = try await node.call(method: method, params: [.string(address.checksummed), .string("latest")])
        guard let text = result.stringValue, let code = try? Hex.decode(text) else {
            throw NodeResponseReader(method: method).fail("result: not 0x-hex code (a \(result.kindName))")
        }
        return code
    }

    /// Whether the code at `address` (a delegate, or an account running a delegate's code) answers ERC-7821's
    /// `supportsExecutionMode(singleBatchMode)` with true. A call the node refuses (a revert: no such
    /// function) is a no; a node that does not answer is an error.
    static func executesBatches(_ address: Address, node: any EthereumNode) async throws(NodeError) -> Bool {
        let call = JSONValue.object(
            JSONObject([
                "to": .string(address.lowercased),
                "data": .string(Hex.encode(ERC7821Batch.supportsExecutionModeCalldata())),
            ]))
        let answer: JSONValue
        do { answer = try await node.call(method: "eth_call", params: [call, .string("latest")]) } catch {
            if case .rpc = error { return false }
            throw error
        }
        guard let text = answer.stringValue, let bytes = try? Hex.decode(text) else { return false }
        return bytes.count == 32 && bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1
    }

    /// The delegate of an EIP-7702 delegation designator (`0xef0100 ‖ delegate`, 23 bytes), or `nil` when
    /// `code` is anything else.
    static func delegate(designatedBy code: [UInt8]) -> Address? {
        guard code.count == 23, code.starts(with: [0xef, 0x01, 0x00]) else { return nil }
        return Address(bytes: code.dropFirst(3))
    }
}

/// How an account can run an atomic batch on a chain (see ``RpcDispatcher/atomicRoute(of:on:id:)``).
enum AtomicRoute: Sendable {
    /// Delegated to an allowed batch executor.
    case supported
    /// A key without code: its transaction can carry its own authorization to `delegate`.
    case ready(delegate: Address)
    /// A deployed smart account whose backend batches by itself, its transactions sent by `submitter`.
    case smartAccount(submitter: Address)
    /// Neither.
    case unsupported
}
