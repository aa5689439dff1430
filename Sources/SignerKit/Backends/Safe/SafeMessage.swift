import EIP712
import EthereumPrimitives

/// The message a Safe (v1.3.0 / v1.4.1 with its `CompatibilityFallbackHandler`) checks an owner's signature
/// against when it is asked `isValidSignature(hash, signatures)`: the EIP-712 struct
/// `SafeMessage(bytes message)` whose `message` is the 32 bytes of `hash`, under the Safe's own domain
/// `EIP712Domain(uint256 chainId,address verifyingContract)` (the Safe's address; no name, no version).
public struct SafeMessage: EIP712Struct, Hashable {
    /// `SafeMessage`.
    public static let eip712TypeName = "SafeMessage"
    /// `SafeMessage(bytes message)`.
    public static let encodeType = "SafeMessage(bytes message)"
    /// `0x60b3cbf8…fbca`.
    public static let typeHash = Keccak256.hash(utf8: encodeType)

    /// The message bytes: for ERC-1271, the 32-byte hash the Safe is asked about.
    public let message: [UInt8]

    /// The `SafeMessage` of an ERC-1271 question about `hash`.
    public init(hash: Digest32) { message = hash.bytes }

    /// `keccak256(message)`.
    public func encodeData(into words: inout EIP712WordHasher) throws(EIP712Error) { words.write(bytes: message) }

    /// The digest the owners sign (raw ECDSA over it, `v` 27/28) for a Safe at `safe` on chain `chainId`.
    public func digest(safe: Address, chainId: UInt256) -> Digest32 {
        // Neither struct has a member that can fail to encode (no bounded integers, no fixed bytes).
        guard let digest = try? digest(domain: SafeDomain(chainId: chainId, verifyingContract: safe)) else {
            preconditionFailure("SafeMessage and SafeDomain always encode")
        }
        return digest
    }
}

/// A Safe's EIP-712 domain: `EIP712Domain(uint256 chainId,address verifyingContract)`.
public struct SafeDomain: EIP712Struct, Hashable {
    /// `EIP712Domain`.
    public static let eip712TypeName = "EIP712Domain"
    /// `EIP712Domain(uint256 chainId,address verifyingContract)`.
    public static let encodeType = "EIP712Domain(uint256 chainId,address verifyingContract)"
    /// `0x47e79534…9218`.
    public static let typeHash = Keccak256.hash(utf8: encodeType)

    /// The chain.
    public let chainId: UInt256
    /// The Safe's address.
    public let verifyingContract: Address

    /// The domain of the Safe at `verifyingContract` on `chainId`.
    public init(chainId: UInt256, verifyingContract: Address) {
        self.chainId = chainId
        self.verifyingContract = verifyingContract
    }

    /// `chainId`, `verifyingContract`.
    public func encodeData(into words: inout EIP712WordHasher) throws(EIP712Error) {
        words.write(chainId)
        words.write(verifyingContract)
    }
}
