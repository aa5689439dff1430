import EthereumPrimitives

extension RpcDispatcher {
    /// EIP-5792's capabilities of `account` on each chain: what `wallet_getCapabilities` answers.
    ///
    /// `atomic` is, per chain:
    /// - ``AtomicCapability/supported`` when the backend that sends the account's transactions on the chain
    ///   finds the account's code (`eth_getCode` at `latest` on the chain's node) to be an EIP-7702
    ///   delegation designator `0xef0100 ‖ delegate` whose delegate the dispatcher's ``AllowedDelegates``
    ///   policy allows on that chain;
    /// - ``AtomicCapability/ready`` when that backend is a registered key (it can sign an EIP-7702
    ///   authorization), the account has no code, and the policy allows at least one delegate on the chain;
    /// - ``AtomicCapability/unsupported`` otherwise: no backend sends the account's transactions on the
    ///   chain, no node for it, a backend that cannot sign authorizations, no ``AllowedDelegates`` policy or
    ///   none of its delegates allowed, contract code, or a delegation to a delegate the policy does not
    ///   allow. No registered backend executes a batch of transactions by itself today (the Safe backend
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
        guard let backend = backend(for: account, chain: chain, method: .sendTransaction), let node = nodes[chain]
        else { return .unsupported }
        let method = "eth_getCode"
        let code: [UInt8]
        do throws(NodeError) {
            let result = try await node.call(method: method, params: [.string(account.checksummed), .string("latest")])
            guard let text = result.stringValue, let bytes = try? Hex.decode(text) else {
                throw NodeResponseReader(method: method).fail("result: not 0x-hex code (a \(result.kindName))")
            }
            code = bytes
        } catch {
            throw .node(chain, error)
        }
        let policies = policies.compactMap { $0 as? AllowedDelegates }
        let allowed = { (delegate: Address) in
            !policies.isEmpty && policies.allSatisfy { $0.allows(delegate, chainId: id) }
        }
        if let delegate = Self.delegate(designatedBy: code) {
            return allowed(delegate) ? .supported : .unsupported
        }
        guard code.isEmpty, backend is PrehashBackend else { return .unsupported }
        let candidates = policies.first?.delegates(chainId: id) ?? []
        return candidates.contains(where: allowed) ? .ready : .unsupported
    }

    /// The delegate of an EIP-7702 delegation designator (`0xef0100 ‖ delegate`, 23 bytes), or `nil` when
    /// `code` is anything else.
    static func delegate(designatedBy code: [UInt8]) -> Address? {
        guard code.count == 23, code.starts(with: [0xef, 0x01, 0x00]) else { return nil }
        return Address(bytes: code.dropFirst(3))
    }
}
