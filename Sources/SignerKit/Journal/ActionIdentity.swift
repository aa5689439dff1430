import EthereumPrimitives

/// What the transaction journal recognises an action by across runs: from the caller's idempotency key
/// and the action's position, or, without a key, from the action's own bytes, its account and chain
/// (and how many identical actions come before it in the batch). A journalled transaction answers an action
/// only when it is what the action asks for (the dispatcher checks sender, chain, recipient, value, data and
/// every field the action gave): a key reused for another payment is refused, never answered with the
/// first one's transaction.
public struct ActionIdentity: Sendable, Hashable, CustomStringConvertible {
    /// Keccak-256 of the identity's inputs (domain-separated, length-prefixed).
    public let digest: Bytes32

    /// An identity with this digest (as read back from a journal).
    public init(digest: Bytes32) { self.digest = digest }

    /// The identity of action `index` of a batch submitted under `idempotencyKey`.
    public init(idempotencyKey: String, index: Int) {
        self.init(parts: ["signerkit.action.key.v1", idempotencyKey, String(index)])
    }

    /// The identity of `action` for `account`, the `occurrence`-th identical action of its batch (from 0).
    public init(action: WalletRpcAction, account: Address, occurrence: Int) {
        self.init(parts: [
            "signerkit.action.bytes.v1", action.chainId.description, action.method, action.params, account.lowercased,
            String(occurrence),
        ])
    }

    private init(parts: [String]) { digest = Self.digest(of: parts) }

    /// Keccak-256 over `parts`, each prefixed by its UTF-8 length (8 bytes, big-endian), so no two lists of
    /// parts hash the same bytes.
    package static func digest(of parts: [String]) -> Bytes32 {
        var bytes: [UInt8] = []
        for part in parts {
            let utf8 = Array(part.utf8)
            withUnsafeBytes(of: UInt64(utf8.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
        return Keccak256.hash(bytes)
    }

    /// The digest as `0x`-hex.
    public var description: String { digest.hex }
}
