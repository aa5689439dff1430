import EthereumPrimitives

/// Why a Merkle tree could not answer (a size or index it does not have) or a proof did not verify.
public enum MerkleProofError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The leaf index is negative or not below the tree size.
    case leafIndexOutOfRange(index: Int, treeSize: Int)
    /// A tree size that is negative or larger than the tree holds (`available` leaves).
    case treeSizeOutOfRange(requested: Int, available: Int)
    /// A consistency proof between sizes that are negative or in the wrong order (the old size is larger).
    case sizesOutOfOrder(oldSize: Int, newSize: Int)
    /// The proof holds `actual` hashes where its sizes (and index) call for exactly `expected`.
    case wrongProofLength(expected: Int, actual: Int)
    /// The proof leads to `computed`, not to the (new) root hash it was checked against.
    case rootMismatch(expected: Bytes32, computed: Bytes32)
    /// A consistency proof leads to `computed` for the old tree, not to the old root hash it was checked against.
    case oldRootMismatch(expected: Bytes32, computed: Bytes32)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .leafIndexOutOfRange(let index, let treeSize):
            "leaf index \(index) is out of range for a tree of size \(treeSize)"
        case .treeSizeOutOfRange(let requested, let available):
            "tree size \(requested) is out of range: the tree holds \(available) leaves"
        case .sizesOutOfOrder(let oldSize, let newSize):
            "no consistency proof from size \(oldSize) to size \(newSize): sizes must satisfy 0 ≤ old ≤ new"
        case .wrongProofLength(let expected, let actual):
            "the proof holds \(actual) hashes; its sizes call for \(expected)"
        case .rootMismatch(let expected, let computed):
            "the proof leads to root \(computed.hex), not to \(expected.hex)"
        case .oldRootMismatch(let expected, let computed):
            "the proof leads to old root \(computed.hex), not to \(expected.hex)"
        }
    }
}
