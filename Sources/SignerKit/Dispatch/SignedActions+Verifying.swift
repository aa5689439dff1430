import EthereumPrimitives

extension SignedActions {
    /// Bundles results that were signed outside the dispatcher (a wallet's own signing stack), after checking
    /// each exactly as the dispatcher checks its backends' results: a signature must be low-s and recover, over
    /// the digest SignerKit computes from the action itself, to the action's account; a raw transaction must
    /// decode to the action's request and recover to its account; an `eth_sendTransaction` result must be a
    /// 32-byte hash (its receipt is not looked up here). Without a node only EOA signatures verify: a smart
    /// account's results need ``verifying(actions:results:nodes:)``.
    ///
    /// ```swift
    /// let signed = try SignedActions.verifying(actions: option.actions, results: walletResults)
    /// try await client.confirmPayment(paymentId, optionId: option.id, signed: signed)
    /// ```
    ///
    /// - Parameters:
    ///   - actions: the actions the results answer, in order.
    ///   - results: one `0x…` string per action, in action order.
    /// - Throws: ``DispatchError`` naming the action: its kind is
    ///   ``DispatchError/Kind/verificationFailed(_:)`` for a result that does not verify (or cannot be read as
    ///   the method's kind of result), or the action's own resolution error; ``DispatchError/Kind/invalidAction(_:)``
    ///   (no index) when the counts differ. Nothing is returned unless every result verifies.
    public static func verifying(actions: [WalletRpcAction], results: [String]) throws(DispatchError) -> SignedActions {
        let checked = try check(actions: actions, results: results, nodes: [:], contractAccounts: false)
        return SignedActions(actions: actions, outcomes: checked.outcomes)
    }

    /// ``verifying(actions:results:)`` for wallets that may be smart accounts: a signature that is not its
    /// account's EOA signature is asked of the account through `node` (ERC-1271, or ERC-6492 for an account not
    /// deployed yet; ``AccountSignatureVerifier``), all of them in one JSON-RPC batch. EOA signatures are checked
    /// without a node call, as before. `node` serves every action's chain; for actions on several chains use
    /// ``verifying(actions:results:nodes:)``.
    ///
    /// ```swift
    /// let signed = try await SignedActions.verifying(actions: option.actions, results: safeResults, node: node)
    /// ```
    ///
    /// - Throws: ``DispatchError`` naming the action, as ``verifying(actions:results:)`` does, and also
    ///   ``DispatchError/Kind/verificationUnavailable(_:)`` when the node failed (a revert is a refusal,
    ///   ``DispatchError/Kind/verificationFailed(_:)``); ``DispatchError/Kind/invalidAction(_:)`` when the actions
    ///   are on more than one chain.
    public static func verifying(actions: [WalletRpcAction], results: [String], node: any EthereumNode)
        async throws(DispatchError) -> SignedActions
    {
        let chains = Set(actions.map(\.chainId))
        guard chains.count <= 1 else {
            throw DispatchError(
                index: nil, method: nil,
                kind: .invalidAction("the actions are on \(chains.count) chains: give a node per chain (nodes:)"))
        }
        return try await verifying(
            actions: actions, results: results, nodes: Dictionary(chains.map { ($0, node) }) { a, _ in a })
    }

    /// ``verifying(actions:results:node:)`` with a node per chain (`nodes[action.chainId]`); a contract
    /// account's result on a chain without a node is refused with ``DispatchError/Kind/noNode(_:)``.
    public static func verifying(
        actions: [WalletRpcAction], results: [String], nodes: [ChainID: any EthereumNode]
    ) async throws(DispatchError) -> SignedActions {
        let checked = try check(actions: actions, results: results, nodes: nodes, contractAccounts: true)
        do throws(ActionFailure) { try await checked.claims.verify(checked.requests) } catch {
            throw DispatchError(index: error.index, method: actions[error.index].method, kind: error.kind)
        }
        return SignedActions(actions: actions, outcomes: checked.outcomes)
    }

    /// Every result read and checked as far as SignerKit can alone; the contract accounts' claims left.
    private static func check(
        actions: [WalletRpcAction], results: [String], nodes: [ChainID: any EthereumNode], contractAccounts: Bool
    ) throws(DispatchError) -> (outcomes: [ActionResult], requests: [ResolvedRequest], claims: PendingAccountClaims) {
        guard !actions.isEmpty else { throw DispatchError(index: nil, method: nil, kind: .emptyActionList) }
        guard actions.count == results.count else {
            throw DispatchError(
                index: nil, method: nil, kind: .invalidAction("\(results.count) results for \(actions.count) actions"))
        }
        var outcomes: [ActionResult] = []
        var requests: [ResolvedRequest] = []
        outcomes.reserveCapacity(actions.count)
        let claims = PendingAccountClaims()
        for (index, (action, text)) in zip(actions, results).enumerated() {
            let request = try RequestResolver.resolve(
                action, index: index, node: nodes[action.chainId], previewer: SigningPreviewer())
            let outcome: ActionResult
            do throws(ResultVerifier.Failure) {
                outcome = try result(text, for: request, contractAccounts: contractAccounts)
                if let claim = try ResultVerifier.verify(outcome, for: request) { claims.add(claim, at: index) }
            } catch {
                throw DispatchError(index: index, method: action.method, kind: .verificationFailed(error.description))
            }
            outcomes.append(outcome)
            requests.append(request)
        }
        return (outcomes, requests, claims)
    }

    /// Reads `text` as the kind of result the request's method returns: with `contractAccounts`, a signature
    /// that is not the account's EOA signature is kept as a contract account's.
    private static func result(_ text: String, for request: ResolvedRequest, contractAccounts: Bool)
        throws(ResultVerifier.Failure) -> ActionResult
    {
        let shown = EchoedText.abbreviated(text)
        switch request.method {
        case .personalSign, .signTypedDataV4:
            guard contractAccounts else {
                do { return .signature(try RecoverableSignature(hex: text)) } catch {
                    throw ResultVerifier.Failure(description: "result \(shown) is not a signature: \(error)")
                }
            }
            let bytes: [UInt8]
            do { bytes = try Hex.decode(text) } catch {
                throw ResultVerifier.Failure(description: "result \(shown) is not hex: \(error)")
            }
            // The account's EOA signature stays one (as without a node); anything else is the account's to judge.
            if bytes.count == 65, let signature = try? RecoverableSignature(rsv: bytes),
                ResultVerifier.isEOASignature(signature, of: request.account, for: request)
            {
                return .signature(signature)
            }
            return .contractSignature(bytes)
        case .sendTransaction:
            do { return .transactionHash(try Bytes32(hex: text)) } catch {
                throw ResultVerifier.Failure(description: "result \(shown) is not a transaction hash: \(error)")
            }
        case .signTransaction:
            do { return .rawTransaction(try Hex.decode(text)) } catch {
                throw ResultVerifier.Failure(description: "result \(shown) is not a raw transaction: \(error)")
            }
        case .sponsorTransaction:
            let bytes: [UInt8]
            do { bytes = try Hex.decode(text) } catch {
                throw ResultVerifier.Failure(description: "result \(shown) is not hex: \(error)")
            }
            guard bytes.count == 65, bytes[64] <= 1, let signature = try? RecoverableSignature(rsv: bytes) else {
                throw ResultVerifier.Failure(
                    description: "result \(shown) is not a payer's signature (65 bytes r‖s‖yParity, yParity 0 or 1)")
            }
            return .payerSignature(signature)
        }
    }
}
