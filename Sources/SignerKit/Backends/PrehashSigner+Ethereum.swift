import EIP712
import EthereumPrimitives
import EthereumTransactions

extension PrehashSigner {
    /// Signs a `personal_sign` message (EIP-191): r‖s‖v with v = 27/28 via `RecoverableSignature/hex`.
    public func signPersonalMessage(_ message: [UInt8]) async throws(SignerError) -> RecoverableSignature {
        try await sign(prehash: PersonalMessage.digest(message))
    }

    /// Signs `eth_signTypedData_v4` typed data after strict validation.
    public func signTypedData(_ typedData: TypedData) async throws(SignerError) -> RecoverableSignature {
        let digest: Digest32
        do { digest = try typedData.digest() } catch { throw .invalidRequest("\(error)") }
        return try await sign(prehash: digest)
    }

    /// Signs a complete transaction: EIP-155 `v` for legacy with a chain id, `yParity` for typed ones.
    public func signTransaction(_ transaction: Transaction) async throws(SignerError) -> SignedTransaction {
        let signature = try await sign(prehash: transaction.signingHash)
        return transaction.signed(with: signature)
    }
}
