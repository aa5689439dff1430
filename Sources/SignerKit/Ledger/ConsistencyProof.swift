import EthereumPrimitives

/// A proof that a Merkle tree of ``newSize`` leaves extends the tree of ``oldSize`` leaves — the first
/// ``oldSize`` leaves are the same, so nothing was changed or removed (RFC 9162 §2.1.4).
///
/// For 0 < old < new it holds the subtree roots RFC 9162 §2.1.4.1 names, deepest first (the old root itself
/// is left out when the old size is a power of two). It is empty when the sizes are equal, and when the old
/// tree is empty: every tree extends the empty one, so there is nothing to prove beyond the empty root.
public struct ConsistencyProof: Sendable, Hashable {
    /// The size of the earlier tree.
    public let oldSize: Int
    /// The size of the later tree.
    public let newSize: Int
    /// The subtree roots, deepest first.
    public let hashes: [Bytes32]

    /// A proof as received or as ``MerkleTree/consistencyProof(from:to:)`` made it.
    public init(oldSize: Int, newSize: Int, hashes: [Bytes32]) {
        self.oldSize = oldSize
        self.newSize = newSize
        self.hashes = hashes
    }

    /// Checks that the tree of ``newSize`` leaves with root `newRoot` extends the tree of ``oldSize`` leaves
    /// with root `oldRoot` (RFC 9162 §2.1.4.2; for an empty old tree, `oldRoot` must be
    /// ``MerkleHash/emptyRoot``, and for equal sizes the roots must be equal).
    ///
    /// - Throws: ``MerkleProofError/sizesOutOfOrder(oldSize:newSize:)``,
    ///   ``MerkleProofError/wrongProofLength(expected:actual:)``,
    ///   ``MerkleProofError/oldRootMismatch(expected:computed:)`` or
    ///   ``MerkleProofError/rootMismatch(expected:computed:)``.
    public func verify(oldRoot: Bytes32, newRoot: Bytes32) throws(MerkleProofError) {
        guard oldSize >= 0, oldSize <= newSize else { throw .sizesOutOfOrder(oldSize: oldSize, newSize: newSize) }
        if oldSize == 0 || oldSize == newSize {
            guard hashes.isEmpty else { throw .wrongProofLength(expected: 0, actual: hashes.count) }
            if oldSize == 0 {
                guard oldRoot == MerkleHash.emptyRoot else {
                    throw .oldRootMismatch(expected: oldRoot, computed: MerkleHash.emptyRoot)
                }
            } else {
                guard oldRoot == newRoot else { throw .rootMismatch(expected: newRoot, computed: oldRoot) }
            }
            return
        }
        // Step 2: a power-of-two old tree is a perfect subtree of the new one; its root starts the path.
        let oldIsPerfect = oldSize & (oldSize - 1) == 0
        // Steps 3–4: the levels where the old tree's last node is a right child are inside the old tree.
        var walk = ProofWalk(fn: oldSize - 1, sn: newSize - 1)
        while walk.fn & 1 == 1 {
            walk.fn >>= 1
            walk.sn >>= 1
        }
        let expected = walk.remainingSteps + (oldIsPerfect ? 0 : 1)
        guard hashes.count == expected else { throw .wrongProofLength(expected: expected, actual: hashes.count) }
        let path = oldIsPerfect ? [oldRoot] + hashes : hashes
        // Steps 5–6: fr rebuilds the old root, sr the new one, from the same path.
        var oldComputed = path[0]
        var newComputed = path[0]
        for hash in path.dropFirst() {
            if walk.step() {
                oldComputed = MerkleHash.node(hash, oldComputed)
                newComputed = MerkleHash.node(hash, newComputed)
            } else {
                newComputed = MerkleHash.node(newComputed, hash)
            }
        }
        guard oldComputed == oldRoot else { throw .oldRootMismatch(expected: oldRoot, computed: oldComputed) }
        guard newComputed == newRoot else { throw .rootMismatch(expected: newRoot, computed: newComputed) }
    }
}
