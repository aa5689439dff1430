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

    /// The delegation of one signed tuple.
    public init(_ tuple: SignedAuthorization) {
        authority = try? tuple.recoverAuthority()
        delegate = tuple.address
        chainId = tuple.chainId
        nonce = tuple.nonce
    }

    /// Whether the tuple clears the authority's delegation (delegate is the zero address).
    public var clearsDelegation: Bool { delegate.bytes.allSatisfy { $0 == 0 } }

    /// `0xAuthority delegates to 0xDelegate (chain 8453, nonce 3)`, `… (any chain, …)`, `… clears its delegation`.
    public var text: String {
        let who = authority?.checksummed ?? "an unrecoverable authority"
        let what = clearsDelegation ? "clears its delegation" : "delegates to \(delegate.checksummed)"
        let chain = chainId.isZero ? "any chain" : "chain \(chainId.decimalString)"
        return "\(who) \(what) (\(chain), nonce \(nonce))"
    }

    /// `{"authority","delegate","chainId","nonce"}` (`authority` null when it does not recover).
    public var json: JSONValue {
        .object(
            JSONObject([
                "authority": authority.map { .string($0.checksummed) } ?? .null,
                "delegate": .string(delegate.checksummed),
                "chainId": .string(chainId.decimalString), "nonce": .string(String(nonce)),
            ]))
    }
}
