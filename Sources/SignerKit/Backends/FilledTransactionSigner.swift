import EthereumPrimitives
import EthereumTransactions

/// A whole-method backend that signs complete transactions elsewhere (another signer service) and lets the
/// dispatcher send them: its accounts' `eth_sendTransaction` runs through the dispatcher's transaction
/// pipeline like a key's — filled from the node, nonce reserved in the journal, judged by the
/// ``FilledTransactionPolicy`` policies — and the backend is asked only to sign the filled transaction. What it
/// returns must be exactly that transaction (the same signing hash) signed by the account, low-s, before it is
/// journalled and broadcast; the backend never broadcasts. Its other methods reach ``WalletRpcSigner/handle(_:)``
/// as usual.
public protocol FilledTransactionSigner: WalletRpcSigner {
    /// Signs `transaction` — complete: `from`, `chainId`, nonce, gas and fees given — and returns the raw signed
    /// transaction.
    func signFilledTransaction(_ transaction: TransactionRequest) async throws(SignerError) -> [UInt8]
}

/// Who signs in the dispatcher's ``TransactionPipeline``: a registered key (signs the digest SignerKit computes),
/// or a backend that signs the filled transaction itself.
enum PipelineSigner: Sendable {
    /// A registered key.
    case key(any PrehashSigner)
    /// A backend signing filled transactions (for `eth_sendTransaction` only).
    case backend(any FilledTransactionSigner)

    /// The signer for `method` of a route whose backend is `key` or `filledSigner` (a key signs both
    /// transaction methods; a backend's `eth_signTransaction` is its own).
    static func of(key: (any PrehashSigner)?, filledSigner: (any FilledTransactionSigner)?, method: RpcMethod)
        -> PipelineSigner?
    {
        if let key { return .key(key) }
        if method == .sendTransaction, let filledSigner { return .backend(filledSigner) }
        return nil
    }

    /// `complete` (made from `filled`) signed for `account`; a backend's answer is checked to be exactly
    /// `complete`, signed by `account`.
    func sign(_ complete: Transaction, filled: TransactionRequest, account: Address) async throws(DispatchError.Kind)
        -> SignedTransaction
    {
        switch self {
        case .key(let key):
            do { return try await key.signTransaction(complete) } catch {
                throw DispatchError.Kind(backendError: error)
            }
        case .backend(let backend):
            let raw: [UInt8]
            do { raw = try await backend.signFilledTransaction(filled) } catch {
                throw DispatchError.Kind(backendError: error)
            }
            let signed: SignedTransaction
            do { signed = try SignedTransaction.decode(raw: raw) } catch {
                throw .verificationFailed("the raw transaction does not decode: \(error)")
            }
            guard signed.transaction.signingHash == complete.signingHash else {
                throw .verificationFailed("the signed transaction is not the filled one the backend was asked to sign")
            }
            return signed
        }
    }
}
