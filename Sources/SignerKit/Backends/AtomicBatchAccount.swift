import EthereumPrimitives
import EthereumTransactions

/// A smart-account backend that executes a batch of calls atomically by itself (EIP-5792's `atomic`
/// capability `supported`): it turns the calls into one transaction an EOA it names sends to the account.
///
/// The dispatcher sends that transaction through its own pipeline as the submitter's `eth_sendTransaction`
/// (filled, its nonce reserved, judged, signed, verified, journalled, broadcast), so the submitter must be a
/// key registered with the dispatcher; the policies judge each call of the batch as a call of the smart
/// account. ``SafeAccountSigner`` with a ``SafeAccountSigner/BatchExecution`` is one.
public protocol AtomicBatchAccount: WalletRpcSigner {
    /// The EOA that sends (and pays the gas of) the account's batch transactions, or `nil` when the backend
    /// does not batch.
    var batchSubmitter: Address? { get }

    /// The transaction from ``batchSubmitter`` that runs `calls` as `account`, in order, all or none, on chain
    /// `chainId` (whose node answers what the account needs to know, such as its own nonce).
    func batchTransaction(
        _ calls: [ERC7821Batch.Call], account: Address, chainId: UInt256, node: any EthereumNode
    ) async throws(SignerError) -> TransactionRequest
}
