import EIP712
import EthereumPrimitives
import EthereumTransactions

/// Parses an action's params for its method and checks them against the action's chain.
/// Pure and synchronous: runs before any backend is called.
enum RequestResolver {
    static func resolve(
        _ action: WalletRpcAction, index: Int, node: (any EthereumNode)?, previewer: SigningPreviewer
    ) throws(DispatchError) -> ResolvedRequest {
        func fail(_ kind: DispatchError.Kind) -> DispatchError {
            DispatchError(index: index, method: action.method, kind: kind)
        }
        guard let method = RpcMethod(rawValue: action.method) else { throw fail(.unknownMethod) }
        guard action.chainId.isEIP155, let chainId = action.chainId.eip155ChainID else {
            throw fail(.unsupportedChain(action.chainId.description))
        }
        // One parse into the tape; typed data is read from it in place (no JSONValue tree, no re-parse).
        let root: JSONNode
        do { root = try JSONDocument(parsing: action.params).root } catch { throw fail(.invalidParams("\(error)")) }
        let params: [JSONNode]
        switch root.kind {
        case .array: params = Array(root.elements)
        case .object where [.sendTransaction, .signTransaction, .sponsorTransaction].contains(method): params = [root]
        default: throw fail(.invalidParams("expected a JSON array"))
        }
        switch method {
        case .personalSign:
            guard params.count >= 2 else { throw fail(.invalidParams("expected [message, address]")) }
            guard let message = params[0].stringValue else {
                throw fail(.invalidParams("[0] (message): expected a string, got \(params[0].kindName)"))
            }
            let account = try address(params[1], position: "[1] (address)", fail: fail)
            let bytes = PersonalMessage.bytes(fromParameter: message)
            let payload = ResolvedRequest.Payload.personalMessage(bytes: bytes, digest: PersonalMessage.digest(bytes))
            return ResolvedRequest(
                index: index, action: action, method: method, chainId: chainId, account: account, payload: payload,
                node: node,
                previewer: previewer)
        case .signTypedDataV4:
            guard params.count >= 2 else { throw fail(.invalidParams("expected [address, typedData]")) }
            let account = try address(params[0], position: "[0] (address)", fail: fail)
            let typedData: TypedData
            let hashes: TypedDataHashes
            let domainChain: UInt256?
            do {
                typedData = try TypedData(json: params[1])
                domainChain = try typedData.domainChainId()
                hashes = try typedData.hashes()
            } catch {
                throw fail(.invalidParams("[1] (typedData): \(error)"))
            }
            if let domainChain, domainChain != chainId {
                throw fail(
                    .chainMismatch(
                        field: "domain.chainId", expected: action.chainId.description, actual: domainChain.decimalString
                    ))
            }
            let payload = ResolvedRequest.Payload.typedData(typedData, hashes: hashes)
            return ResolvedRequest(
                index: index, action: action, method: method, chainId: chainId, account: account, payload: payload,
                node: node,
                previewer: previewer)
        case .sendTransaction, .signTransaction:
            var (request, object) = try transaction(params, fail: fail)
            guard let from = request.from else { throw fail(.invalidParams("[0] (transaction).from: missing")) }
            try checkChain(of: request, chainId: chainId, action: action, fail: fail)
            // No type and no fee fields: the backend may choose EIP-1559 fees from the node.
            let feesOpen =
                object["type"] == nil && request.gasPrice == nil && request.maxFeePerGas == nil
                && request.maxPriorityFeePerGas == nil
            request.chainId = request.chainId ?? chainId
            let payload = ResolvedRequest.Payload.transaction(request, feesOpen: feesOpen)
            let calls: [ResolvedRequest]
            do throws(DispatchError.Kind) {
                calls = try BatchedCalls.requests(
                    of: request, account: from, index: index, action: action, method: method, chainId: chainId,
                    node: node, previewer: previewer)
            } catch {
                throw fail(error)
            }
            return ResolvedRequest(
                index: index, action: action, method: method, chainId: chainId, account: from, payload: payload,
                node: node, previewer: previewer, calls: calls)
        case .sponsorTransaction:
            let (request, payer) = try sponsorship(params, chainId: chainId, action: action, fail: fail)
            let payerHash: Bytes32
            do { payerHash = try request.roninPayerSigningHash(chainId: chainId) } catch {
                throw fail(.invalidParams("[0] (transaction): \(error)"))
            }
            // Routed to the payer: the account that signs here is the one that pays.
            return ResolvedRequest(
                index: index, action: action, method: method, chainId: chainId, account: payer,
                payload: .sponsorship(request, payerHash: payerHash), node: node, previewer: previewer)
        }
    }

    /// The sender's request of a `ronin_sponsorTransaction`: type `0x64`, `from` (the sender) and `payer` (the
    /// account that pays) given and different, every field the payer commits to present (nothing is filled:
    /// the payer signs the transaction as it will be sent), and no payer signature yet.
    private static func sponsorship(
        _ params: [JSONNode], chainId: UInt256, action: WalletRpcAction, fail: (DispatchError.Kind) -> DispatchError
    ) throws(DispatchError) -> (TransactionRequest, payer: Address) {
        var (request, _) = try transaction(params, fail: fail)
        guard request.type == .roninSponsored else {
            throw fail(.invalidParams("[0] (transaction).type: \(request.type) is not a sponsored transaction (0x64)"))
        }
        guard let sender = request.from else { throw fail(.invalidParams("[0] (transaction).from: missing")) }
        guard let payer = request.payer else { throw fail(.invalidParams("[0] (transaction).payer: missing")) }
        guard payer != sender else {
            throw fail(.invalidParams("[0] (transaction).payer: \(TransactionError.payerIsSender(payer))"))
        }
        guard request.payerSignature == nil else {
            throw fail(.invalidParams("[0] (transaction).payerV: the request is already sponsored"))
        }
        try checkChain(of: request, chainId: chainId, action: action, fail: fail)
        if let missing = request.missingFields.first {
            throw fail(
                .invalidParams(
                    "[0] (transaction).\(missing): missing (the payer signs the transaction as it will be sent)"))
        }
        if request.expiredTime == nil { throw fail(.invalidParams("[0] (transaction).expiredTime: missing")) }
        request.chainId = chainId
        return (request, payer)
    }

    /// The transaction object of `[tx]` params, read strictly.
    private static func transaction(_ params: [JSONNode], fail: (DispatchError.Kind) -> DispatchError)
        throws(DispatchError) -> (TransactionRequest, JSONObject)
    {
        guard let first = params.first, first.kind == .object, case .object(let object) = first.value else {
            throw fail(.invalidParams("[0] (transaction): expected an object"))
        }
        do { return (try TransactionRequest(json: .object(object)), object) } catch {
            throw fail(.invalidParams("[0] (transaction): \(error)"))
        }
    }

    /// Refuses a transaction whose own `chainId` is not the action's chain.
    private static func checkChain(
        of request: TransactionRequest, chainId: UInt256, action: WalletRpcAction,
        fail: (DispatchError.Kind) -> DispatchError
    ) throws(DispatchError) {
        guard let txChain = request.chainId, txChain != chainId else { return }
        throw fail(
            .chainMismatch(
                field: "transaction.chainId", expected: action.chainId.description, actual: txChain.decimalString))
    }

    private static func address(
        _ value: JSONNode, position: String, fail: (DispatchError.Kind) -> DispatchError
    ) throws(DispatchError) -> Address {
        guard let text = value.stringValue else {
            throw fail(.invalidParams("\(position): expected an address string, got \(value.kindName)"))
        }
        do { return try Address(text) } catch { throw fail(.invalidParams("\(position): \(error)")) }
    }
}
