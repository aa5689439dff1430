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

extension RoninSponsoredTransaction {
    /// Signs as the payer for `sender`: the same fields with `key`'s signature over
    /// ``payerSigningHash(sender:)`` (low-s, RFC 6979). Refuses a payer that is the sender.
    public static func sponsor(
        chainId: UInt256, sender: Address, nonce: UInt256, maxPriorityFeePerGas: UInt256, maxFeePerGas: UInt256,
        gasLimit: UInt256, to: Address?, value: UInt256, data: [UInt8], expiredTime: UInt64, payerKey: PrivateKey
    ) throws(TransactionError) -> RoninSponsoredTransaction {
        guard payerKey.address != sender else { throw .payerIsSender(sender) }
        let hash = payerSigningHash(
            chainId: chainId, sender: sender, nonce: nonce, maxPriorityFeePerGas: maxPriorityFeePerGas,
            maxFeePerGas: maxFeePerGas, gasLimit: gasLimit, to: to, value: value, data: data, expiredTime: expiredTime)
        return RoninSponsoredTransaction(
            chainId: chainId, nonce: nonce, maxPriorityFeePerGas: maxPriorityFeePerGas, maxFeePerGas: maxFeePerGas,
            gasLimit: gasLimit, to: to, value: value, data: data, expiredTime: expiredTime,
            payerSignature: payerKey.sign(prehash: hash))
    }

    /// The payer, as a Ronin node recovers it for `sender`: the address behind ``payerSignature`` over
    /// ``payerSigningHash(sender:)``.
    ///
    /// - Throws: ``TransactionError/invalidPayerSignature(_:)`` for a high s or a signature no key matches;
    ///   ``TransactionError/payerIsSender(_:)`` when it recovers to `sender`.
    public func recoverPayer(sender: Address) throws(TransactionError) -> Address {
        guard payerSignature.isLowS else { throw .invalidPayerSignature("s is above n/2 (low-s is required)") }
        let payer: Address
        do throws(RecoveryError) {
            payer = try ECDSA.recoverAddress(prehash: payerSigningHash(sender: sender), signature: payerSignature)
        } catch {
            throw .invalidPayerSignature("no payer recovers from it: \(error)")
        }
        guard payer != sender else { throw .payerIsSender(sender) }
        return payer
    }

    /// Checks that the payer's signature recovers to `payer` (any payer other than `sender` when `nil`);
    /// returns the payer.
    public func verifyPayer(_ payer: Address?, sender: Address) throws(TransactionError) -> Address {
        let recovered = try recoverPayer(sender: sender)
        if let payer, recovered != payer {
            throw .invalidPayerSignature(
                "it recovers to \(recovered.checksummed), not to the payer \(payer.checksummed)")
        }
        return recovered
    }
}

extension SignedTransaction {
    /// The payer of a type `0x64` transaction, recovered for its recovered sender; `nil` for other types.
    public func recoverPayer() throws(TransactionError) -> Address? {
        guard case .roninSponsored(let sponsored) = transaction else { return nil }
        return try sponsored.recoverPayer(sender: try recoverSender())
    }
}
