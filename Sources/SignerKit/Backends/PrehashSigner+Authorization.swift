import EthereumPrimitives
import EthereumTransactions

extension PrehashSigner {
    /// Signs an EIP-7702 authorization, if `policy` allows it: the one way SignerKit signs authorizations.
    ///
    /// The policy is a required argument, so no code path signs an authorization without one: it must list
    /// the delegate, and chain id 0 (valid on every chain) needs `allowingAnyChain`. An authorization with
    /// nonce 2^64 − 1 is refused too (no node can ever apply it). The key's signature is checked like every
    /// backend's result (low-s, recovering to ``address`` over SignerKit's own digest) before it is returned.
    ///
    /// - Throws: ``SignerError/policyViolation(policy:reason:)`` when the policy refuses,
    ///   ``SignerError/invalidRequest(_:)`` for the nonce, ``SignerError/verificationFailed(_:)`` when the key's
    ///   signature does not verify, or the key's own error.
    public func signAuthorization(_ authorization: Authorization, policy: AllowedDelegates) async throws(SignerError)
        -> SignedAuthorization
    {
        if case .fail(let reason) = policy.evaluate(authorization) {
            throw .policyViolation(policy: policy.name, reason: reason)
        }
        guard authorization.isApplicable else {
            throw .invalidRequest("authorization nonce 2^64-1 can never be applied (EIP-7702 requires nonce < 2^64-1)")
        }
        let digest = authorization.signingHash
        let signature = try await sign(prehash: digest)
        do { try SignatureCheck.verify(signature, over: digest, by: address) } catch {
            throw .verificationFailed("authorization: \(error)")
        }
        return authorization.signed(with: signature)
    }
}
