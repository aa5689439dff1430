import EthereumPrimitives
import SignerKit
import Testing

/// Every proof of every small tree verifies, and no change to it does: a proof hash, the index, the sizes,
/// the roots, its length.
///
/// Sizes are authenticated by the signed checkpoint, not by a proof alone: an inclusion proof checks the same
/// way for two tree sizes whose paths have the same shape (leaf 0 of 5 and of 6), so a changed size is checked
/// against the root *of that size*, as a verifier holding a checkpoint would.
@Suite("Merkle proofs refuse every change")
struct MerkleProofTamperTests {
    typealias H = LedgerTestHelpers

    static let largestSize = 40
    /// A tree one larger, so that the root at `largestSize + 1` exists for the size changes.
    static let tree = H.tree(size: largestSize + 1)
    /// Bits flipped in each proof hash: the first, one in the middle, the last.
    static let bits = [0, 131, 255]

    /// The error `body` throws, or `nil`.
    static func failure(_ body: () throws(MerkleProofError) -> Void) -> MerkleProofError? {
        do {
            try body()
            return nil
        } catch { return error }
    }

    static func isMismatch(_ error: MerkleProofError?) -> Bool {
        switch error {
        case .rootMismatch, .oldRootMismatch: true
        default: false
        }
    }

    @Test("inclusion proofs of every leaf of every tree up to 40 leaves verify, and fail once changed")
    func inclusionProofs() throws {
        let tree = Self.tree
        for size in 1...Self.largestSize {
            let root = try tree.root(atSize: size)
            for index in 0..<size {
                let proof = try tree.inclusionProof(forLeafAt: index, treeSize: size)
                let leaf = try tree.leafHash(at: index)
                let context = "leaf \(index) of \(size)"
                try proof.verify(leafHash: leaf, root: root)

                for position in proof.hashes.indices {
                    for bit in Self.bits {
                        var hashes = proof.hashes
                        hashes[position] = H.flipped(hashes[position], bit: bit)
                        let changed = InclusionProof(leafIndex: index, treeSize: size, hashes: hashes)
                        let error = Self.failure { () throws(MerkleProofError) in
                            try changed.verify(leafHash: leaf, root: root)
                        }
                        #expect(Self.isMismatch(error), "\(context), hash \(position) bit \(bit)")
                    }
                }
                #expect(
                    Self.isMismatch(
                        Self.failure { () throws(MerkleProofError) in
                            try proof.verify(leafHash: H.flipped(leaf, bit: 7), root: root)
                        }), "\(context), leaf hash changed")
                #expect(
                    Self.isMismatch(
                        Self.failure { () throws(MerkleProofError) in
                            try proof.verify(leafHash: leaf, root: H.flipped(root, bit: 200))
                        }), "\(context), root changed")

                for other in -1...size where other != index {
                    let moved = InclusionProof(leafIndex: other, treeSize: size, hashes: proof.hashes)
                    let error = Self.failure { () throws(MerkleProofError) in
                        try moved.verify(leafHash: leaf, root: root)
                    }
                    if other < 0 || other >= size {
                        #expect(error == .leafIndexOutOfRange(index: other, treeSize: size), "\(context) as \(other)")
                    } else {
                        #expect(error != nil, "\(context) claimed as leaf \(other)")
                    }
                }
                for otherSize in [size - 1, size + 1] where otherSize > index {
                    let resized = InclusionProof(leafIndex: index, treeSize: otherSize, hashes: proof.hashes)
                    let otherRoot = try tree.root(atSize: otherSize)
                    let error = Self.failure { () throws(MerkleProofError) in
                        try resized.verify(leafHash: leaf, root: otherRoot)
                    }
                    #expect(error != nil, "\(context) claimed for size \(otherSize)")
                }

                let longer = InclusionProof(leafIndex: index, treeSize: size, hashes: proof.hashes + [leaf])
                #expect(
                    Self.failure { () throws(MerkleProofError) in try longer.verify(leafHash: leaf, root: root) }
                        == .wrongProofLength(expected: proof.hashes.count, actual: proof.hashes.count + 1), "\(context)"
                )
                if !proof.hashes.isEmpty {
                    let shorter = InclusionProof(
                        leafIndex: index, treeSize: size, hashes: Array(proof.hashes.dropLast()))
                    #expect(
                        Self.failure { () throws(MerkleProofError) in
                            try shorter.verify(leafHash: leaf, root: root)
                        } == .wrongProofLength(expected: proof.hashes.count, actual: proof.hashes.count - 1),
                        "\(context)")
                }
            }
        }
    }

    @Test("consistency proofs between every pair of sizes up to 40 verify, and fail once changed")
    func consistencyProofs() throws {
        let tree = Self.tree
        for newSize in 0...Self.largestSize {
            let newRoot = try tree.root(atSize: newSize)
            for oldSize in 0...newSize {
                let oldRoot = try tree.root(atSize: oldSize)
                let proof = try tree.consistencyProof(from: oldSize, to: newSize)
                let context = "\(oldSize) → \(newSize)"
                try proof.verify(oldRoot: oldRoot, newRoot: newRoot)
                #expect(proof.hashes.isEmpty == (oldSize == 0 || oldSize == newSize), "\(context)")

                for position in proof.hashes.indices {
                    for bit in Self.bits {
                        var hashes = proof.hashes
                        hashes[position] = H.flipped(hashes[position], bit: bit)
                        let changed = ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: hashes)
                        let error = Self.failure { () throws(MerkleProofError) in
                            try changed.verify(oldRoot: oldRoot, newRoot: newRoot)
                        }
                        #expect(Self.isMismatch(error), "\(context), hash \(position) bit \(bit)")
                    }
                }
                #expect(
                    Self.isMismatch(
                        Self.failure { () throws(MerkleProofError) in
                            try proof.verify(oldRoot: H.flipped(oldRoot, bit: 9), newRoot: newRoot)
                        }), "\(context), old root changed")
                if oldSize > 0 {
                    // From the empty tree nothing is proven about the new root: any root extends it.
                    #expect(
                        Self.isMismatch(
                            Self.failure { () throws(MerkleProofError) in
                                try proof.verify(oldRoot: oldRoot, newRoot: H.flipped(newRoot, bit: 250))
                            }), "\(context), new root changed")
                }
                if oldSize > 0, oldSize < newSize {
                    #expect(
                        Self.isMismatch(
                            Self.failure { () throws(MerkleProofError) in
                                try proof.verify(oldRoot: newRoot, newRoot: oldRoot)
                            }), "\(context), roots swapped")
                }

                // Other sizes, each checked against its own root: refused unless the honest proof for those
                // sizes is this very proof (only the empty proofs of equal sizes and of an empty old tree).
                let neighbours = [
                    (oldSize - 1, newSize), (oldSize + 1, newSize), (oldSize, newSize - 1),
                    (oldSize, newSize + 1),
                ]
                for (otherOld, otherNew) in neighbours
                where otherOld >= 0 && otherOld <= otherNew
                    && otherNew <= Self.largestSize + 1
                {
                    let claimed = ConsistencyProof(oldSize: otherOld, newSize: otherNew, hashes: proof.hashes)
                    let honest = try tree.consistencyProof(from: otherOld, to: otherNew)
                    let otherOldRoot = try tree.root(atSize: otherOld)
                    let otherNewRoot = try tree.root(atSize: otherNew)
                    let error = Self.failure { () throws(MerkleProofError) in
                        try claimed.verify(oldRoot: otherOldRoot, newRoot: otherNewRoot)
                    }
                    if honest.hashes == proof.hashes {
                        #expect(proof.hashes.isEmpty && error == nil, "\(context) as \(otherOld) → \(otherNew)")
                    } else {
                        #expect(error != nil, "\(context) claimed as \(otherOld) → \(otherNew)")
                    }
                }

                let longer = ConsistencyProof(oldSize: oldSize, newSize: newSize, hashes: proof.hashes + [newRoot])
                #expect(
                    Self.failure { () throws(MerkleProofError) in
                        try longer.verify(oldRoot: oldRoot, newRoot: newRoot)
                    } == .wrongProofLength(expected: proof.hashes.count, actual: proof.hashes.count + 1), "\(context)")
                if !proof.hashes.isEmpty {
                    let shorter = ConsistencyProof(
                        oldSize: oldSize, newSize: newSize, hashes: Array(proof.hashes.dropLast()))
                    #expect(
                        Self.failure { () throws(MerkleProofError) in
                            try shorter.verify(oldRoot: oldRoot, newRoot: newRoot)
                        } == .wrongProofLength(expected: proof.hashes.count, actual: proof.hashes.count - 1),
                        "\(context)")
                }
            }
        }
    }
}
