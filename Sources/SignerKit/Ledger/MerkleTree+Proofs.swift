import EthereumPrimitives

extension MerkleTree {
    /// The inclusion proof of the leaf at `index` in the tree of `treeSize` leaves (default: the current size),
    /// as RFC 9162 §2.1.3.1 defines it (PATH(m, D[n])): the sibling subtree roots from the leaf up to the root.
    ///
    /// - Throws: ``MerkleProofError/treeSizeOutOfRange(requested:available:)`` for a size the tree has not had,
    ///   ``MerkleProofError/leafIndexOutOfRange(index:treeSize:)`` for an index not below that size.
    public func inclusionProof(forLeafAt index: Int, treeSize: Int? = nil) throws(MerkleProofError) -> InclusionProof {
        let treeSize = treeSize ?? size
        try checkSize(treeSize)
        guard index >= 0, index < treeSize else { throw .leafIndexOutOfRange(index: index, treeSize: treeSize) }
        var hashes: [Bytes32] = []
        path(index, 0, treeSize, into: &hashes)
        return InclusionProof(leafIndex: index, treeSize: treeSize, hashes: hashes)
    }

    /// The consistency proof from the tree of `oldSize` leaves to the tree of `newSize` (default: the current
    /// size), as RFC 9162 §2.1.4.1 defines it (PROOF(m, D[n]) = SUBPROOF(m, D[n], true)) for 0 < m < n; it is
    /// empty when the sizes are equal or the old tree is empty.
    ///
    /// - Throws: ``MerkleProofError/treeSizeOutOfRange(requested:available:)`` for a new size the tree has not
    ///   had, ``MerkleProofError/sizesOutOfOrder(oldSize:newSize:)`` unless 0 ≤ `oldSize` ≤ `newSize`.
    public func consistencyProof(from oldSize: Int, to newSize: Int? = nil) throws(MerkleProofError)
        -> ConsistencyProof
    {
        let newSize = newSize ?? size
        try checkSize(newSize)
        guard oldSize >= 0, oldSize <= newSize else { throw .sizesOutOfOrder(oldSize: oldSize, newSize: newSize) }
        var hashes: [Bytes32] = []
        if oldSize > 0, oldSize < newSize { subproof(oldSize, 0, newSize, complete: true, into: &hashes) }
        return ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: hashes)
    }

    /// PATH(m, D[start ..< end]), appended to `hashes` deepest first.
    private func path(_ m: Int, _ start: Int, _ end: Int, into hashes: inout [Bytes32]) {
        let count = end - start
        guard count > 1 else { return }
        let k = MerkleHash.split(count)
        if m < k {
            path(m, start, start + k, into: &hashes)
            hashes.append(rangeRoot(start + k, end))
        } else {
            path(m - k, start + k, end, into: &hashes)
            hashes.append(rangeRoot(start, start + k))
        }
    }

    /// SUBPROOF(m, D[start ..< end], b), appended to `hashes` deepest first; `complete` is b: whether the
    /// subtree of the first m leaves is the old tree itself, whose root the verifier already has.
    private func subproof(_ m: Int, _ start: Int, _ end: Int, complete: Bool, into hashes: inout [Bytes32]) {
        let count = end - start
        if m == count {
            if !complete { hashes.append(rangeRoot(start, end)) }
            return
        }
        let k = MerkleHash.split(count)
        if m <= k {
            subproof(m, start, start + k, complete: complete, into: &hashes)
            hashes.append(rangeRoot(start + k, end))
        } else {
            subproof(m - k, start + k, end, complete: false, into: &hashes)
            hashes.append(rangeRoot(start, start + k))
        }
    }
}
