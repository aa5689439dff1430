import EthereumPrimitives

/// An append-only RFC 9162 Merkle tree (SHA-256, ``MerkleHash``) in memory: append entries, read the root at
/// the current or any earlier size, and prove inclusion (``inclusionProof(forLeafAt:treeSize:)``) and
/// consistency (``consistencyProof(from:to:)``) at any of those sizes.
///
/// The tree keeps every *perfect* subtree it has completed, level by level: level 0 holds the leaf hashes,
/// level h the roots of the aligned subtrees of 2^h leaves. Appending a leaf completes at most one subtree per
/// level (amortised one node hash; log₂ n in the worst case), so the tree holds fewer than 2n hashes. The
/// right edge of these levels is the tree's "frontier": the root of any size m ≤ n joins the perfect
/// subtrees of m's binary decomposition, so it costs at most log₂ m node hashes and no rehashing of leaves;
/// a proof joins O(log² n) of them.
///
/// ```swift
/// var tree = MerkleTree()
/// tree.append(Array("first entry".utf8))
/// tree.append(Array("second entry".utf8))
/// let proof = try tree.inclusionProof(forLeafAt: 0)
/// try proof.verify(leafHash: MerkleHash.leaf(Array("first entry".utf8)), root: tree.root)
/// ```
public struct MerkleTree: Sendable {
    /// `levels[h][i]`: the root of the perfect subtree over leaves i·2^h ..< (i+1)·2^h.
    private var levels: [[Bytes32]] = []

    /// The empty tree.
    public init() {}

    /// A tree of the given leaf hashes, in order.
    public init(leafHashes: some Sequence<Bytes32>) {
        for hash in leafHashes { append(leafHash: hash) }
    }

    /// The number of leaves.
    public var size: Int { levels.first?.count ?? 0 }

    /// The leaf hashes, in order.
    public var leafHashes: [Bytes32] { levels.first ?? [] }

    /// The root hash at the current size (``MerkleHash/emptyRoot`` while empty).
    public var root: Bytes32 { rangeRoot(0, size) }

    /// Appends `entry` as the next leaf; returns its leaf hash (SHA-256(0x00 ‖ entry)).
    @discardableResult
    public mutating func append(_ entry: [UInt8]) -> Bytes32 {
        let hash = MerkleHash.leaf(entry)
        append(leafHash: hash)
        return hash
    }

    /// Appends a leaf by its leaf hash (an entry hashed elsewhere with ``MerkleHash/leaf(_:)``).
    public mutating func append(leafHash: Bytes32) {
        var hash = leafHash
        var level = 0
        while true {
            if level == levels.count { levels.append([]) }
            levels[level].append(hash)
            let count = levels[level].count
            // An even count completes the subtree above the last two.
            guard count % 2 == 0 else { return }
            hash = MerkleHash.node(levels[level][count - 2], hash)
            level += 1
        }
    }

    /// The leaf hash at `index`.
    ///
    /// - Throws: ``MerkleProofError/leafIndexOutOfRange(index:treeSize:)``.
    public func leafHash(at index: Int) throws(MerkleProofError) -> Bytes32 {
        guard index >= 0, index < size else { throw .leafIndexOutOfRange(index: index, treeSize: size) }
        return levels[0][index]
    }

    /// The root hash the tree had at `treeSize` leaves (0 ... ``size``).
    ///
    /// - Throws: ``MerkleProofError/treeSizeOutOfRange(requested:available:)``.
    public func root(atSize treeSize: Int) throws(MerkleProofError) -> Bytes32 {
        try checkSize(treeSize)
        return rangeRoot(0, treeSize)
    }

    /// Throws unless `treeSize` is a size the tree has had (0 ... ``size``).
    func checkSize(_ treeSize: Int) throws(MerkleProofError) {
        guard treeSize >= 0, treeSize <= size else {
            throw .treeSizeOutOfRange(requested: treeSize, available: size)
        }
    }

    /// MTH(D[start ..< end]) per RFC 9162 §2.1.1: a stored node when the range is an aligned perfect subtree,
    /// otherwise the node over the split at the largest power of two below its length. `0 ≤ start ≤ end ≤ size`.
    func rangeRoot(_ start: Int, _ end: Int) -> Bytes32 {
        let count = end - start
        if count == 0 { return MerkleHash.emptyRoot }
        if count & (count - 1) == 0, start % count == 0 {
            let level = count.trailingZeroBitCount
            return levels[level][start >> level]
        }
        let k = MerkleHash.split(count)
        return MerkleHash.node(rangeRoot(start, start + k), rangeRoot(start + k, end))
    }
}
