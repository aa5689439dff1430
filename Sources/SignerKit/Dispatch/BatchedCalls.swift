import EthereumPrimitives
import EthereumTransactions

/// The calls inside a transaction that executes an ERC-7821 batch: a transaction from the account to itself
/// whose data calls `execute` runs, under the account's EIP-7702 delegate, every call of the batch as the
/// account. Policies must see those calls, not one opaque call to the account's own address, so the resolver
/// turns each into a request of its own (``ResolvedRequest/calls``).
///
/// Such a transaction whose batch SignerKit cannot read strictly (another execution mode, a non-canonical
/// encoding an executor might still accept) is refused: what policies cannot see is not signed.
enum BatchedCalls {
    /// How deep batches may nest (a call of a batch to the account itself executing another batch).
    static let maximumDepth = 3

    /// The requests of the calls `transaction` runs when it is an ERC-7821 `execute` of `account` to itself;
    /// empty for any other transaction.
    static func requests(
        of transaction: TransactionRequest, account: Address, index: Int, action: WalletRpcAction, method: RpcMethod,
        chainId: UInt256, node: (any EthereumNode)?, previewer: SigningPreviewer, depth: Int = 0
    ) throws(DispatchError.Kind) -> [ResolvedRequest] {
        guard transaction.to == account, transaction.data.starts(with: ERC7821Batch.executeSelector) else {
            return []
        }
        let field = depth == 0 ? "[0] (transaction).data" : "[0] (transaction).data (a nested batch)"
        guard depth < maximumDepth else {
            throw .invalidParams("\(field): batches nest deeper than \(maximumDepth) levels")
        }
        let batch: ERC7821Batch
        do { batch = try ERC7821Batch(decoding: transaction.data) } catch {
            throw .invalidParams("\(field): an ERC-7821 execute SignerKit cannot read, so cannot judge: \(error)")
        }
        var resolved: [ResolvedRequest] = []
        for call in batch.calls {
            // ERC-7821: the zero address stands for the executing account itself.
            let target = call.to.bytes.allSatisfy { $0 == 0 } ? account : call.to
            let inner = TransactionRequest(
                type: .eip1559, from: account, to: target, value: call.value, data: call.data, chainId: chainId)
            let nested = try Self.requests(
                of: inner, account: account, index: index, action: action, method: method, chainId: chainId,
                node: node, previewer: previewer, depth: depth + 1)
            resolved.append(
                ResolvedRequest(
                    index: index, action: action, method: method, chainId: chainId, account: account,
                    payload: .transaction(inner, feesOpen: true), node: node, previewer: previewer, calls: nested))
        }
        return resolved
    }
}
