import EthereumPrimitives

extension PrehashSigner {
    /// Signs an EIP-4361 message as `personal_sign` (EIP-191) does: r‖s‖v with v = 27/28 via
    /// `RecoverableSignature/hex`. Only the text the message writes (``SignInMessage/bytes``) is signed.
    ///
    /// - Throws: ``SignerError/invalidRequest(_:)`` when the message signs in another account than this
    ///   key's; the key's own errors otherwise.
    public func signSignIn(_ message: SignInMessage) async throws(SignerError) -> RecoverableSignature {
        guard message.address == address else {
            throw .invalidRequest(
                "the sign-in message is for \(message.address.checksummed), not for this key's account \(address.checksummed)"
            )
        }
        return try await sign(prehash: message.personalSignDigest)
    }
}
