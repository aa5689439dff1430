import EthereumPrimitives
import Foundation

extension SignInMessage {
    /// Verifies a signed sign-in for any account, a smart account (Safe, ERC-4337 wallet) included: as
    /// ``verify(signature:expectedDomain:expectedURI:expectedChainId:expectedNonce:at:)`` when `signature` is
    /// the EOA signature of ``address`` (no node call); otherwise, once every other check passed, the account
    /// is asked through `node`, which must serve the message's Chain ID (its `eth_chainId` is checked first):
    /// `isValidSignature` (ERC-1271), or the ERC-6492 procedure for an account not deployed yet
    /// (``AccountSignatureVerifier``).
    ///
    /// ```swift
    /// let kind = try await message.verify(signature: bytes, node: node, expectedDomain: "example.com")
    /// ```
    ///
    /// - Returns: how the signature was found valid (``AccountSignatureKind``); the account is ``address``.
    /// - Throws: ``SignInVerificationError`` naming the first check that failed: for the signature,
    ///   ``SignInVerificationError/accountSignature(_:)`` when the account refuses it, or
    ///   ``SignInVerificationError/node(_:)`` when the node failed.
    @discardableResult
    public func verify(
        signature: [UInt8], node: any EthereumNode, expectedDomain: String, expectedURI: String? = nil,
        expectedChainId: UInt256? = nil, expectedNonce: String? = nil, at: Date = Date()
    ) async throws(SignInVerificationError) -> AccountSignatureKind {
        try await verifyChecks(
            signature: signature, node: node, expectedDomain: expectedDomain, expectedURI: expectedURI,
            expectedChainId: expectedChainId, expectedNonce: expectedNonce, at: at)
    }

    /// ``verify(signature:node:expectedDomain:expectedURI:expectedChainId:expectedNonce:at:)`` with the domain
    /// check optional (the command line's `siwe verify --rpc-url` without `--domain`); without a node only an
    /// EOA signature verifies.
    package func verifyChecks(
        signature: [UInt8], node: (any EthereumNode)?, expectedDomain: String?, expectedURI: String?,
        expectedChainId: UInt256?, expectedNonce: String?, at: Date
    ) async throws(SignInVerificationError) -> AccountSignatureKind {
        if signature.count == 65, let eoa = try? RecoverableSignature(rsv: signature),
            (try? SignatureCheck.verify(eoa, over: personalSignDigest, by: address)) != nil || node == nil
        {
            _ = try verifyChecks(
                signature: eoa, expectedDomain: expectedDomain, expectedURI: expectedURI,
                expectedChainId: expectedChainId, expectedNonce: expectedNonce, at: at)
            return .eoa
        }
        try checkFields(
            expectedDomain: expectedDomain, expectedURI: expectedURI, expectedChainId: expectedChainId,
            expectedNonce: expectedNonce, at: at)
        let claim = AccountSignatureClaim(account: address, digest: personalSignDigest, signature: signature)
        if let node {
            // The same address may be another account (other owners) on another chain: ask the message's own.
            let nodeChain: UInt256
            do { nodeChain = try await node.chainId() } catch { throw .node(error) }
            guard nodeChain == chainId else {
                throw .accountSignature(
                    "the node is on chain \(nodeChain.decimalString), the message's Chain ID is \(chainId.decimalString)"
                )
            }
        }
        let verdict: AccountSignatureVerdict
        do { verdict = try await AccountSignatureVerifier.verify([claim], node: node)[0] } catch { throw .node(error) }
        switch verdict {
        case .valid(let kind): return kind
        case .invalid(let reason): throw .accountSignature(reason)
        }
    }
}
