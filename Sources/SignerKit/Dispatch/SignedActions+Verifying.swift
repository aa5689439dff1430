import EthereumPrimitives

extension SignedActions {
    /// Bundles results that were signed outside the dispatcher (a wallet's own signing stack), after checking
    /// each exactly as the dispatcher checks its backends' results: a signature must be low-s and recover, over
    /// the digest SignerKit computes from the action itself, to the action's account; a raw transaction must
    /// decode to the action's request and recover to its account; an `eth_sendTransaction` result must be a
    /// 32-byte hash (its receipt is not looked up here).
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
        guard !actions.isEmpty else { throw DispatchError(index: nil, method: nil, kind: .emptyActionList) }
        guard actions.count == results.count else {
            throw DispatchError(
                index: nil, method: nil, kind: .invalidAction("\(results.count) results for \(actions.count) actions"))
        }
        var outcomes: [ActionResult] = []
        outcomes.reserveCapacity(actions.count)
        for (index, (action, text)) in zip(actions, results).enumerated() {
            let request = try RequestResolver.resolve(action, index: index, node: nil, previewer: SigningPreviewer())
            let outcome: ActionResult
            do throws(ResultVerifier.Failure) { outcome = try result(text, for: request.method) } catch {
                throw DispatchError(index: index, method: action.method, kind: .verificationFailed(error.description))
            }
            do throws(ResultVerifier.Failure) { try ResultVerifier.verify(outcome, for: request) } catch {
                throw DispatchError(index: index, method: action.method, kind: .verificationFailed(error.description))
            }
            outcomes.append(outcome)
        }
        return SignedActions(actions: actions, outcomes: outcomes)
    }

    /// Reads `text` as the kind of result `method` returns.
    private static func result(_ text: String, for method: RpcMethod) throws(ResultVerifier.Failure) -> ActionResult {
        let shown = EchoedText.abbreviated(text)
        switch method {
        case .personalSign, .signTypedDataV4:
            do { return .signature(try RecoverableSignature(hex: text)) } catch {
                throw ResultVerifier.Failure(description: "result \(shown) is not a signature: \(error)")
            }
        case .sendTransaction:
            do { return .transactionHash(try Bytes32(hex: text)) } catch {
                throw ResultVerifier.Failure(description: "result \(shown) is not a transaction hash: \(error)")
            }
        case .signTransaction:
            do { return .rawTransaction(try Hex.decode(text)) } catch {
                throw ResultVerifier.Failure(description: "result \(shown) is not a raw transaction: \(error)")
            }
        }
    }
}
