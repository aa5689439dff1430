import EthereumPrimitives
import Foundation

/// Why a signed EIP-4361 message was refused: the check that failed and what it found.
///
/// `description`: `SIWE check domain failed: the message is for "evil.example", not "example.com"`.
public enum SignInVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The checks, in the order ``SignInMessage/verify(signature:expectedDomain:expectedURI:expectedChainId:expectedNonce:at:)``
    /// runs them (raw values are the names `signerkit siwe verify` prints).
    public enum Check: String, Sendable, Equatable, CaseIterable {
        /// The signature is low-s and recovers to the message's address over the EIP-191 digest.
        case signature
        /// The scheme and domain are the expected ones.
        case domain
        /// The URI is the expected one.
        case uri
        /// The chain id is the expected one.
        case chainId = "chain-id"
        /// The nonce is the expected one.
        case nonce
        /// The moment of verification is not before `Not Before`.
        case notBefore = "not-before"
        /// The moment of verification is before `Expiration Time`.
        case expirationTime = "expiration-time"
    }

    /// The signature is high-s, does not recover, or recovers to another account.
    case signature(SignatureCheck.Failure)
    /// The message's address is not the signer's EOA and, asked through the node (ERC-1271 / ERC-6492), does
    /// not accept the signature: the text says what it answered.
    case accountSignature(String)
    /// The node that was to ask the contract account failed; the signature may be valid.
    case node(NodeError)
    /// The message names another domain (or scheme) than the expected one.
    case domain(expected: String, actual: String)
    /// The message names another URI.
    case uri(expected: String, actual: String)
    /// The message names another chain.
    case chainId(expected: UInt256, actual: UInt256)
    /// The message carries another nonce.
    case nonce(expected: String, actual: String)
    /// The message is not valid yet.
    case notYetValid(notBefore: RFC3339DateTime, at: Date)
    /// The message is no longer valid.
    case expired(expirationTime: RFC3339DateTime, at: Date)

    /// The check that failed.
    public var check: Check {
        switch self {
        case .signature, .accountSignature, .node: .signature
        case .domain: .domain
        case .uri: .uri
        case .chainId: .chainId
        case .nonce: .nonce
        case .notYetValid: .notBefore
        case .expired: .expirationTime
        }
    }

    /// `SIWE check <name> failed: <what was found>`.
    public var description: String {
        let detail: String
        switch self {
        case .signature(let failure): detail = failure.description
        case .accountSignature(let reason): detail = reason
        case .node(let error): detail = "the node could not ask the account: \(error)"
        case .domain(let expected, let actual):
            detail = "the message is for \(SignInMessageError.quote(actual)), not \(SignInMessageError.quote(expected))"
        case .uri(let expected, let actual):
            detail =
                "the message's URI is \(SignInMessageError.quote(actual)), not \(SignInMessageError.quote(expected))"
        case .chainId(let expected, let actual):
            detail = "the message's Chain ID is \(actual.decimalString), not \(expected.decimalString)"
        case .nonce(let expected, let actual):
            detail =
                "the message's Nonce is \(SignInMessageError.quote(actual)), not \(SignInMessageError.quote(expected))"
        case .notYetValid(let notBefore, let at):
            detail = "the message is valid from \(notBefore.text), not yet at \(Self.format(at))"
        case .expired(let expirationTime, let at):
            detail = "the message expired at \(expirationTime.text), before \(Self.format(at))"
        }
        return "SIWE check \(check.rawValue) failed: \(detail)"
    }

    private static func format(_ date: Date) -> String {
        (try? RFC3339DateTime(date).text) ?? "\(date.timeIntervalSince1970) s after 1970"
    }
}

extension SignInMessage {
    /// Verifies a signed sign-in as a relying party must (EIP-4361, "Verifying a signed Message"): the
    /// signature is low-s and recovers to ``address`` over the EIP-191 digest SignerKit computes from
    /// ``bytes``; the domain, and the URI, chain and nonce when given, are the expected ones; and `at` lies in
    /// the validity window, `Not Before` ≤ `at` < `Expiration Time`.
    ///
    /// `expectedDomain` is an authority (`example.com`, compared case-insensitively) or an origin
    /// (`https://example.com`), which also requires the message's scheme (`https` when it names none).
    /// Only externally owned accounts are verified: for a contract account (a smart wallet), use
    /// ``verify(signature:node:expectedDomain:expectedURI:expectedChainId:expectedNonce:at:)`` with a node.
    ///
    /// - Returns: the account that signed in (``address``).
    /// - Throws: ``SignInVerificationError`` naming the first check that failed.
    @discardableResult
    public func verify(
        signature: RecoverableSignature, expectedDomain: String, expectedURI: String? = nil,
        expectedChainId: UInt256? = nil, expectedNonce: String? = nil, at: Date = Date()
    ) throws(SignInVerificationError) -> Address {
        try verifyChecks(
            signature: signature, expectedDomain: expectedDomain, expectedURI: expectedURI,
            expectedChainId: expectedChainId, expectedNonce: expectedNonce, at: at)
    }

    /// ``verify(signature:expectedDomain:expectedURI:expectedChainId:expectedNonce:at:)`` with the domain
    /// check optional, for the command line's `siwe verify` without `--domain`.
    package func verifyChecks(
        signature: RecoverableSignature, expectedDomain: String?, expectedURI: String?, expectedChainId: UInt256?,
        expectedNonce: String?, at: Date
    ) throws(SignInVerificationError) -> Address {
        do { try SignatureCheck.verify(signature, over: personalSignDigest, by: address) } catch {
            throw .signature(error)
        }
        try checkFields(
            expectedDomain: expectedDomain, expectedURI: expectedURI, expectedChainId: expectedChainId,
            expectedNonce: expectedNonce, at: at)
        return address
    }

    /// Every check but the signature's, in order.
    func checkFields(
        expectedDomain: String?, expectedURI: String?, expectedChainId: UInt256?, expectedNonce: String?, at: Date
    ) throws(SignInVerificationError) {
        if let expectedDomain, !matches(origin: expectedDomain) {
            throw .domain(
                expected: expectedDomain,
                actual: expectedDomain.contains("://") ? "\(scheme ?? "https")://\(domain)" : domain)
        }
        if let expectedURI, expectedURI != uri { throw .uri(expected: expectedURI, actual: uri) }
        if let expectedChainId, expectedChainId != chainId {
            throw .chainId(expected: expectedChainId, actual: chainId)
        }
        if let expectedNonce, expectedNonce != nonce { throw .nonce(expected: expectedNonce, actual: nonce) }
        if let notBefore, at < notBefore.date { throw .notYetValid(notBefore: notBefore, at: at) }
        if let expirationTime, at >= expirationTime.date { throw .expired(expirationTime: expirationTime, at: at) }
    }

    /// Whether `expected` (`example.com` or `https://example.com`) names this message's domain (and scheme).
    private func matches(origin expected: String) -> Bool {
        guard let separator = expected.range(of: "://") else { return Self.sameASCII(expected, domain) }
        let expectedScheme = String(expected[..<separator.lowerBound])
        let expectedDomain = String(expected[separator.upperBound...])
        return Self.sameASCII(expectedScheme, scheme ?? "https") && Self.sameASCII(expectedDomain, domain)
    }

    /// ASCII case-insensitive equality (schemes and host names are case-insensitive).
    static func sameASCII(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count
            && zip(a.utf8, b.utf8).allSatisfy { x, y in
                x == y || (URIGrammar.isAlpha(x) && URIGrammar.isAlpha(y) && x | 0x20 == y | 0x20)
            }
    }
}
