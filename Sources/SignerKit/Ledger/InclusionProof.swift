import EthereumPrimitives

/// A proof that a leaf is in a Merkle tree of a given size (RFC 9162 §2.1.3): the hashes of the sibling
/// subtrees on the leaf's path to the root, deepest first.
///
/// Its length is fixed by the index and the size (at most ⌈log₂ size⌉): ``verify(leafHash:root:)`` refuses
/// any other before hashing.
public struct InclusionProof: Sendable, Hashable {
    /// The leaf's index, from 0.
    public let leafIndex: Int
    /// The size of the tree whose root the proof leads to.
    public let treeSize: Int
    /// The sibling subtree roots, from the leaf's level up.
    public let hashes: [Bytes32]

    /// A proof as received (a receipt) or as ``MerkleTree/inclusionProof(forLeafAt:treeSize:)`` made it.
    public init(leafIndex: Int, treeSize: Int, hashes: [Bytes32]) {
        self.leafIndex = leafIndex
        self.treeSize = treeSize
        self.hashes = hashes
    }

    /// Checks that the leaf with `leafHash` is at ``leafIndex`` in the tree of ``treeSize`` leaves whose root
    /// is `root` (RFC 9162 §2.1.3.2).
    ///
    /// - Throws: ``MerkleProofError/leafIndexOutOfRange(index:treeSize:)``,
    ///   ``MerkleProofError/wrongProofLength(expected:actual:)`` or
    ///   ``MerkleProofError/rootMismatch(expected:computed:)``.
    public func verify(leafHash: Bytes32, root: Bytes32) throws(MerkleProofError) {
        guard leafIndex >= 0, leafIndex < treeSize else {
            throw .leafIndexOutOfRange(index: leafIndex, treeSize: treeSize)
        }
        var walk = ProofWalk(fn: leafIndex, sn: treeSize - 1)
        let expected = walk.remainingSteps
        guard hashes.count == expected else { throw .wrongProofLength(expected: expected, actual: hashes.count) }
        var computed = leafHash
        for sibling in hashes {
            computed = walk.step() ? MerkleHash.node(sibling, computed) : MerkleHash.node(computed, sibling)
        }
        guard computed == root else { throw .rootMismatch(expected: root, computed: computed) }
    }
}
