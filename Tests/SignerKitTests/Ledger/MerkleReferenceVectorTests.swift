import EthereumPrimitives
import SignerKit
import Testing

/// The Certificate Transparency reference data (``RFC6962ReferenceVectors``): roots, proofs generated and
/// proofs verified, byte for byte.
@Suite("Merkle tree against the RFC 6962 reference data")
struct MerkleReferenceVectorTests {
    typealias Vectors = RFC6962ReferenceVectors
    typealias H = LedgerTestHelpers

    static func referenceTree() throws -> MerkleTree {
        var tree = MerkleTree()
        for input in Vectors.leafInputs { tree.append(try H.bytes(input)) }
        return tree
    }

    @Test("the empty root is SHA-256 of nothing, as the reference data has it")
    func emptyRoot() throws {
        #expect(MerkleHash.emptyRoot == (try H.hash(Vectors.roots[0])))
        #expect(MerkleTree().root == MerkleHash.emptyRoot)
    }

    @Test("roots at sizes 0 to 8, appended one by one and read back at each earlier size")
    func roots() throws {
        var tree = MerkleTree()
        #expect(tree.root == (try H.hash(Vectors.roots[0])))
        for (i, input) in Vectors.leafInputs.enumerated() {
            tree.append(try H.bytes(input))
            #expect(tree.root == (try H.hash(Vectors.roots[i + 1])), "size \(i + 1)")
        }
        for size in 0...8 { #expect(try tree.root(atSize: size) == (try H.hash(Vectors.roots[size])), "size \(size)") }
    }

    @Test("inclusion proofs: ours equal the reference proofs, and the reference proofs verify")
    func inclusionProofs() throws {
        let tree = try Self.referenceTree()
        for probe in Vectors.inclusions {
            let expected = try probe.proof.map(H.hash)
            let proof = try tree.inclusionProof(forLeafAt: probe.index, treeSize: probe.size)
            #expect(proof.hashes == expected, "leaf \(probe.index) of \(probe.size)")
            #expect(try tree.leafHash(at: probe.index) == (try H.hash(probe.leafHash)))
            let reference = InclusionProof(leafIndex: probe.index, treeSize: probe.size, hashes: expected)
            try reference.verify(leafHash: try H.hash(probe.leafHash), root: try H.hash(Vectors.roots[probe.size]))
        }
    }

    @Test("consistency proofs: ours equal the reference proofs, and the reference proofs verify")
    func consistencyProofs() throws {
        let tree = try Self.referenceTree()
        for probe in Vectors.consistencies {
            let expected = try probe.proof.map(H.hash)
            let proof = try tree.consistencyProof(from: probe.oldSize, to: probe.newSize)
            #expect(proof.hashes == expected, "\(probe.oldSize) → \(probe.newSize)")
            let reference = ConsistencyProof(oldSize: probe.oldSize, newSize: probe.newSize, hashes: expected)
            try reference.verify(
                oldRoot: try H.hash(Vectors.roots[probe.oldSize]), newRoot: try H.hash(Vectors.roots[probe.newSize]))
        }
    }
}
