import EthereumPrimitives
import Secp256k1

/// The hashes of an RFC 9162 (Certificate Transparency 2.0, §2.1; the same as RFC 6962 §2.1) Merkle tree with
/// SHA-256: the leaf and interior-node hashes with their domain-separation prefixes, and the root of the empty
/// tree.
///
/// The prefixes keep a leaf from ever hashing like an interior node (a second-preimage across levels), so
/// an entry of 64 bytes cannot pose as two subtree roots.
public enum MerkleHash {
    /// MTH({}) = SHA-256 of no bytes: the root of the empty tree
    /// (`e3b0c442…b855`).
    public static let emptyRoot = sha256([])

    /// The leaf hash of `entry`: SHA-256(0x00 ‖ entry).
    public static func leaf(_ entry: [UInt8]) -> Bytes32 {
        var input: [UInt8] = [0x00]
        input.reserveCapacity(1 + entry.count)
        input.append(contentsOf: entry)
        return sha256(input)
    }

    /// The interior node over two subtree roots: SHA-256(0x01 ‖ left ‖ right).
    public static func node(_ left: Bytes32, _ right: Bytes32) -> Bytes32 {
        var input: [UInt8] = [0x01]
        input.reserveCapacity(65)
        input.append(contentsOf: left.bytes)
        input.append(contentsOf: right.bytes)
        return sha256(input)
    }

    /// SHA-256 through libgcrypt (`SecureMemory.SHA256`, which `Secp256k1` re-exports).
    public static func sha256(_ bytes: [UInt8]) -> Bytes32 {
        let digest = SHA256.hash(bytes)
        return Bytes32 { buffer in buffer.copyBytes(from: digest) }
    }

    /// The largest power of two strictly below `count` (`count` ≥ 2): the RFC's split point k, so that the
    /// left subtree is perfect and holds at least half of the leaves.
    static func split(_ count: Int) -> Int {
        1 << (Int.bitWidth - 1 - (count - 1).leadingZeroBitCount)
    }
}
