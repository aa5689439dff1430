import EthereumPrimitives
import EthereumTransactions

/// One delegation a type-4 (EIP-7702) transaction carries: whose code becomes a pointer to which contract.
public struct PreviewDelegation: Sendable, Hashable {
    /// The account whose code is set, recovered from the tuple's signature; `nil` when it does not recover
    /// (a node skips the tuple).
    public let authority: Address?
    /// The contract the authority's code delegates to (the zero address clears a delegation).
    public let delegate: Address
    /// The chain the tuple is valid on; 0 is every chain.
    public let chainId: UInt256
    /// The authority nonce the tuple needs.
    public let nonce: UInt64
    /// Why a node will skip the tuple whatever the state (it still charges for it), or `nil`: the
    /// authority does not recover, the chain id is neither 0 nor the transaction's, or the nonce is
    /// 2^64 − 1.
    public let skipReason: String?

    /// The delegation of one signed tuple in a transaction on chain `transactionChainId`.
    public init(_ tuple: SignedAuthorization, transactionChainId: UInt256) {
        delegate = tuple.address
        chainId = tuple.chainId
        nonce = tuple.nonce
        var authority: Address?
        var reason: String?
        do throws(AuthorityRecoveryError) { authority = try tuple.recoverAuthority() } catch {
            reason = error.description
        }
        self.authority = authority
        if reason == nil, !tuple.chainId.isZero, tuple.chainId != transactionChainId {
            reason = "chain id \(tuple.chainId.decimalString) is not the transaction's chain"
        }
        if reason == nil, !tuple.authorization.isApplicable { reason = "nonce 2^64-1 is never applied" }
        skipReason = reason
    }

    /// Whether the tuple clears the authority's delegation (delegate is the zero address).
    public var clearsDelegation: Bool { delegate.bytes.allSatisfy { $0 == 0 } }

    /// `0xAuthority delegates to 0xDelegate (chain 8453, nonce 3)`, `… (any chain, …)`, `… clears its delegation`.
    public var text: String {
        let who = authority?.checksummed ?? "an unrecoverable authority"
        let what = clearsDelegation ? "clears its delegation" : "delegates to \(delegate.checksummed)"
        let chain = chainId.isZero ? "any chain" : "chain \(chainId.decimalString)"
        return "\(who) \(what) (\(chain), nonce \(nonce))" + (skipReason.map { " [skipped: \($0)]" } ?? "")
    }

    /// `{"authority","delegate","chainId","nonce"}` (`authority` null when it does not recover), plus
    /// `"skipped"` with ``skipReason`` when there is one.
    public var json: JSONValue {
        var object = JSONObject([
            "authority": authority.map { .string($0.checksummed) } ?? .null, "delegate": .string(delegate.checksummed),
            "chainId": .string(chainId.decimalString), "nonce": .string(String(nonce)),
        ])
        if let skipReason { object["skipped"] = .string(skipReason) }
        return .object(object)
    }
}
