import EthereumPrimitives
import Secp256k1

extension TransactionFields {
    /// Signs ``signingHash`` with `key` (deterministic RFC 6979, low-s).
    public func sign(with key: PrivateKey) -> SignedTransaction {
        signed(with: key.sign(prehash: signingHash))
    }
}

extension SignedTransaction {
    /// The address that signed the transaction, as a node would recover it.
    ///
    /// - Throws: ``TransactionError/highS`` for s above n/2 (EIP-2), or
    ///   ``TransactionError/senderRecovery(_:)`` when r or s is out of range or no key matches.
    public func recoverSender() throws(TransactionError) -> Address {
        guard signature.isLowS else { throw .highS }
        do throws(RecoveryError) {
            return try ECDSA.recoverAddress(prehash: transaction.signingHash, signature: signature)
        } catch {
            throw .senderRecovery(error)
        }
    }
}
