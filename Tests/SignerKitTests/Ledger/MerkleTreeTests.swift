import EthereumPrimitives
import SignerKit
import Testing

/// The tree's own API: the hash definitions, growth past the sizes the oracles cover, and the typed errors
/// for sizes and indices it does not have.
@Suite("Merkle tree API")
struct MerkleTreeTests {
    typealias H = LedgerTestHelpers

    /// MTH over leaf hashes, recursively and from scratch (RFC 9162 §2.1.1), for sizes beyond the Python
    /// oracle's: every level of the stored subtrees up to 2^10 is read by the tree's roots and proofs.
    static func recursiveRoot(_ leaves: ArraySlice<Bytes32>) -> Bytes32 {
        switch leaves.count {
        case 0: return MerkleHash.emptyRoot
        case 1: return leaves[leaves.startIndex]
        default:
            var k = 1
            while k * 2 < leaves.count { k *= 2 }
            let middle = leaves.startIndex + k
            return MerkleHash.node(recursiveRoot(leaves[..<middle]), recursiveRoot(leaves[middle...]))
        }
    }

    static func failure(_ body: () throws(MerkleProofError) -> Void) -> MerkleProofError? {
        do {
            try body()
            return nil
        } catch { return error }
    }

    @Test("leaf and node hashes carry the 0x00 and 0x01 prefixes (RFC 6962 reference values)")
    func hashDefinitions() throws {
        let leaf0 = MerkleHash.leaf([])
        let leaf1 = MerkleHash.leaf([0x00])
        #expect(leaf0 == (try H.hash("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d")))
        #expect(leaf1 == (try H.hash("96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7")))
        #expect(
            MerkleHash.node(leaf0, leaf1)
                == (try H.hash("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125")))
        #expect(MerkleHash.node(leaf0, leaf1) != MerkleHash.node(leaf1, leaf0))
        #expect(MerkleHash.leaf(leaf0.bytes + leaf1.bytes) != MerkleHash.node(leaf0, leaf1))
    }

    @Test("appending returns the leaf hash; a tree of leaf hashes equals the tree of appended entries")
    func appending() throws {
        var tree = MerkleTree()
        #expect(tree.size == 0)
        #expect(tree.leafHashes.isEmpty)
        for i in 0..<9 { #expect(tree.append(H.entry(i)) == MerkleHash.leaf(H.entry(i))) }
        #expect(tree.size == 9)
        let copy = MerkleTree(leafHashes: tree.leafHashes)
        #expect(copy.size == 9)
        #expect(copy.root == tree.root)
        #expect(try copy.inclusionProof(forLeafAt: 4) == (try tree.inclusionProof(forLeafAt: 4)))
    }

    @Test("roots and proofs at sizes around powers of two up to 1 030 leaves match the recursive definition")
    func largerTrees() throws {
        let tree = H.tree(size: 1030)
        let leaves = tree.leafHashes
        for size in [127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 1030] {
            let root = try tree.root(atSize: size)
            #expect(root == Self.recursiveRoot(leaves[..<size]), "size \(size)")
            for index in [0, size / 3, size - 1] {
                let proof = try tree.inclusionProof(forLeafAt: index, treeSize: size)
                #expect(proof.hashes.count <= 11)
                try proof.verify(leafHash: leaves[index], root: root)
            }
            for oldSize in [1, size / 2, size - 1] {
                try tree.consistencyProof(from: oldSize, to: size)
                    .verify(oldRoot: Self.recursiveRoot(leaves[..<oldSize]), newRoot: root)
            }
        }
        #expect(tree.root == Self.recursiveRoot(leaves[...]))
    }

    @Test("indices and sizes the tree does not have are typed errors")
    func outOfRange() throws {
        let tree = H.tree(size: 5)
        #expect(throws: MerkleProofError.leafIndexOutOfRange(index: 5, treeSize: 5)) { try tree.leafHash(at: 5) }
        #expect(throws: MerkleProofError.leafIndexOutOfRange(index: -1, treeSize: 5)) { try tree.leafHash(at: -1) }
        #expect(throws: MerkleProofError.treeSizeOutOfRange(requested: 6, available: 5)) {
            try tree.root(atSize: 6)
        }
        #expect(throws: MerkleProofError.treeSizeOutOfRange(requested: -1, available: 5)) {
            try tree.root(atSize: -1)
        }
        #expect(throws: MerkleProofError.leafIndexOutOfRange(index: 5, treeSize: 5)) {
            try tree.inclusionProof(forLeafAt: 5)
        }
        #expect(throws: MerkleProofError.leafIndexOutOfRange(index: 3, treeSize: 3)) {
            try tree.inclusionProof(forLeafAt: 3, treeSize: 3)
        }
        #expect(throws: MerkleProofError.treeSizeOutOfRange(requested: 6, available: 5)) {
            try tree.inclusionProof(forLeafAt: 0, treeSize: 6)
        }
        #expect(throws: MerkleProofError.sizesOutOfOrder(oldSize: 4, newSize: 3)) {
            try tree.consistencyProof(from: 4, to: 3)
        }
        #expect(throws: MerkleProofError.sizesOutOfOrder(oldSize: -1, newSize: 5)) {
            try tree.consistencyProof(from: -1)
        }
        #expect(throws: MerkleProofError.treeSizeOutOfRange(requested: 9, available: 5)) {
            try tree.consistencyProof(from: 1, to: 9)
        }
        #expect(throws: MerkleProofError.leafIndexOutOfRange(index: 0, treeSize: 0)) {
            try MerkleTree().inclusionProof(forLeafAt: 0)
        }
    }

    @Test("verification names what is wrong: index, sizes, length, which root")
    func verificationErrors() throws {
        let tree = H.tree(size: 8)
        let root = tree.root
        let leaf = try tree.leafHash(at: 0)
        let proof = try tree.inclusionProof(forLeafAt: 0)
        #expect(proof.hashes.count == 3)
        #expect(
            Self.failure { () throws(MerkleProofError) in
                try InclusionProof(leafIndex: 0, treeSize: 8, hashes: Array(proof.hashes.prefix(2)))
                    .verify(leafHash: leaf, root: root)
            } == .wrongProofLength(expected: 3, actual: 2))
        #expect(
            Self.failure { () throws(MerkleProofError) in
                try InclusionProof(leafIndex: 0, treeSize: 0, hashes: []).verify(leafHash: leaf, root: root)
            } == .leafIndexOutOfRange(index: 0, treeSize: 0))
        let wrongLeaf = MerkleHash.leaf([0xFF])
        guard
            case .rootMismatch(let expected, _) = Self.failure({ () throws(MerkleProofError) in
                try proof.verify(leafHash: wrongLeaf, root: root)
            })
        else {
            Issue.record("a wrong leaf must be a root mismatch")
            return
        }
        #expect(expected == root)

        let oldRoot = try tree.root(atSize: 3)
        #expect(
            Self.failure { () throws(MerkleProofError) in
                try ConsistencyProof(oldSize: 5, newSize: 3, hashes: []).verify(oldRoot: root, newRoot: oldRoot)
            } == .sizesOutOfOrder(oldSize: 5, newSize: 3))
        #expect(
            Self.failure { () throws(MerkleProofError) in
                try ConsistencyProof(oldSize: 0, newSize: 8, hashes: []).verify(oldRoot: oldRoot, newRoot: root)
            } == .oldRootMismatch(expected: oldRoot, computed: MerkleHash.emptyRoot))
        #expect(
            Self.failure { () throws(MerkleProofError) in
                try ConsistencyProof(oldSize: 0, newSize: 8, hashes: [root]).verify(
                    oldRoot: MerkleHash.emptyRoot, newRoot: root)
            } == .wrongProofLength(expected: 0, actual: 1))
        #expect(
            Self.failure { () throws(MerkleProofError) in
                try ConsistencyProof(oldSize: 8, newSize: 8, hashes: []).verify(oldRoot: oldRoot, newRoot: root)
            } == .rootMismatch(expected: root, computed: oldRoot))
        let consistency = try tree.consistencyProof(from: 3)
        guard
            case .oldRootMismatch(let expectedOld, _) = Self.failure({ () throws(MerkleProofError) in
                try consistency.verify(oldRoot: try tree.root(atSize: 2), newRoot: root)
            })
        else {
            Issue.record("a wrong old root must be an old-root mismatch")
            return
        }
        #expect(expectedOld == (try tree.root(atSize: 2)))
    }
}
