import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// Python's hashlib as an independent oracle: a plain transcription of RFC 6962's recursive definitions
/// (MTH, PATH, PROOF/SUBPROOF, §2.1–2.1.2) computes the root of every tree of sizes 0 … 70, the inclusion
/// proof of every leaf and the consistency proof of every pair of sizes; ours must be equal, hash for hash,
/// and must verify.
@Suite(
    "Merkle tree against a Python transcription of RFC 6962",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: LocalEVM.venv.appendingPathComponent("bin/python").path),
        "the EVM venv (Python) is not installed"))
struct MerkleOracleTests {
    typealias H = LedgerTestHelpers

    static let largestSize = 70

    /// RFC 6962 §2.1 as written: no shortcut, every subtree root recomputed from the entries.
    static let script = """
        import hashlib, json, sys

        def leaf_hash(entry):
            return hashlib.sha256(b"\\x00" + entry).digest()

        def node_hash(left, right):
            return hashlib.sha256(b"\\x01" + left + right).digest()

        def split(n):  # the largest power of two smaller than n
            k = 1
            while k * 2 < n:
                k *= 2
            return k

        def mth(d):
            n = len(d)
            if n == 0:
                return hashlib.sha256(b"").digest()
            if n == 1:
                return leaf_hash(d[0])
            k = split(n)
            return node_hash(mth(d[:k]), mth(d[k:]))

        def path(m, d):
            n = len(d)
            if n == 1:
                return []
            k = split(n)
            if m < k:
                return path(m, d[:k]) + [mth(d[k:])]
            return path(m - k, d[k:]) + [mth(d[:k])]

        def subproof(m, d, b):
            n = len(d)
            if m == n:
                return [] if b else [mth(d)]
            k = split(n)
            if m <= k:
                return subproof(m, d[:k], b) + [mth(d[k:])]
            return subproof(m - k, d[k:], False) + [mth(d[:k])]

        entries = [bytes.fromhex(e) for e in json.load(sys.stdin)]
        out = {"roots": [], "inclusion": [], "consistency": []}
        for n in range(len(entries) + 1):
            d = entries[:n]
            out["roots"].append(mth(d).hex())
            out["inclusion"].append([[h.hex() for h in path(m, d)] for m in range(n)])
            # PROOF(m, D[n]) is defined for 0 < m < n; SignerKit's proofs for m = 0 and m = n are empty.
            out["consistency"].append(
                [[h.hex() for h in subproof(m, d, True)] if 0 < m < n else [] for m in range(n + 1)])
        print(json.dumps(out))
        """

    struct Oracle {
        var roots: [String]
        var inclusion: [[[String]]]
        var consistency: [[[String]]]
    }

    static func oracle() async throws -> Oracle {
        let entries = (0..<largestSize).map { JSONValue.string(Hex.encode(H.entry($0), prefix: false)) }
        let answer = try await PythonOracle.run(script, input: .array(entries))
        func strings(_ value: JSONValue?) throws -> [String] {
            try #require(value?.arrayValue).map { try #require($0.stringValue) }
        }
        func proofs(_ key: String) throws -> [[[String]]] {
            try #require(answer[key]?.arrayValue).map { size in
                try #require(size.arrayValue).map(strings)
            }
        }
        return Oracle(
            roots: try strings(answer["roots"]), inclusion: try proofs("inclusion"),
            consistency: try proofs("consistency"))
    }

    @Test("roots, inclusion and consistency proofs of every tree of sizes 0 to 70 equal the oracle's, and verify")
    func everyTreeUpTo70() async throws {
        let oracle = try await Self.oracle()
        try #require(oracle.roots.count == Self.largestSize + 1)
        var tree = MerkleTree()
        #expect(H.plain(tree.root) == oracle.roots[0])
        for i in 0..<Self.largestSize {
            tree.append(H.entry(i))
            #expect(H.plain(tree.root) == oracle.roots[i + 1], "root after appending leaf \(i)")
        }
        for size in 0...Self.largestSize {
            let root = try tree.root(atSize: size)
            #expect(H.plain(root) == oracle.roots[size], "root at size \(size)")
            for index in 0..<size {
                let proof = try tree.inclusionProof(forLeafAt: index, treeSize: size)
                #expect(proof.hashes.map(H.plain) == oracle.inclusion[size][index], "leaf \(index) of \(size)")
                try proof.verify(leafHash: try tree.leafHash(at: index), root: root)
            }
            for oldSize in 0...size {
                let proof = try tree.consistencyProof(from: oldSize, to: size)
                #expect(proof.hashes.map(H.plain) == oracle.consistency[size][oldSize], "\(oldSize) → \(size)")
                try proof.verify(oldRoot: try tree.root(atSize: oldSize), newRoot: root)
            }
        }
    }
}
