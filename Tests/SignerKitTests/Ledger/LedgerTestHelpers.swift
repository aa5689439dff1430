import EthereumPrimitives
import SignerKit

/// What the ledger tests share: hex without `0x` as the CT test data writes it, the entries of the test trees,
/// one-bit changes.
enum LedgerTestHelpers {
    /// The 32 bytes of plain hex (no `0x`).
    static func hash(_ hex: String) throws -> Bytes32 { try Bytes32(hex: "0x" + hex) }

    /// The bytes of plain hex (no `0x`; empty for "").
    static func bytes(_ hex: String) throws -> [UInt8] { hex.isEmpty ? [] : try Hex.decode("0x" + hex) }

    /// Plain lower-case hex of a hash, as the Python oracle prints it.
    static func plain(_ hash: Bytes32) -> String { String(hash.hex.dropFirst(2)) }

    /// Entry `i` of the test trees: the `i` bytes 0, 1, …, i − 1 (entry 0 is empty), so entries differ in length
    /// and content.
    static func entry(_ i: Int) -> [UInt8] { (0..<i).map { UInt8($0 & 0xFF) } }

    /// The tree of entries 0 ..< `size`.
    static func tree(size: Int) -> MerkleTree {
        var tree = MerkleTree()
        for i in 0..<size { tree.append(entry(i)) }
        return tree
    }

    /// `hash` with bit `bit` (0 ..< 256) flipped.
    static func flipped(_ hash: Bytes32, bit: Int) -> Bytes32 {
        var copy = hash
        copy[bit / 8] ^= 1 << UInt8(bit % 8)
        return copy
    }
}
