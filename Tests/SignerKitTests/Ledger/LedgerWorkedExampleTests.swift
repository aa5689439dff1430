import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// The worked example of the ledger format (docs: the ledger format notes): a 3-leaf tree, one inclusion proof
/// and the checkpoint signed by the fixed test key `TestKeys.wallet`, pinned to the byte. RFC 6979 signing is
/// deterministic, so the note's text is the same on every run; a change of format shows here first.
@Suite("Ledger worked example")
struct LedgerWorkedExampleTests {
    typealias H = LedgerTestHelpers

    static let keyName = "signer.example.com/audit"
    static let entries = [#"{"n":0}"#, #"{"n":1}"#, #"{"n":2}"#]
    /// 2026-01-01T00:00:00Z.
    static let time: Int64 = 1_767_225_600

    static let leafHashes = [
        "f94070abfd2da0bf72902eb13a808e794f954d9e2745c682a158f6ed0d4ac036",
        "fb5d93e6cf90bc9470cd9ea9d9e12348993db3e854ab2b7660e3594767045f6c",
        "3d1de776df086c1ae9f7049d2bb0c0475ad14185f987e064e8d10dcb2db4a322",
    ]
    static let root = "2cfef7627597e00b564975774ad728ef210706759fca6d64138c6dfc1cbf2cda"
    /// The inclusion proof of leaf 1 in the tree of 3: its sibling leaf 0, then leaf 2.
    static let proofOfLeaf1 = [
        "f94070abfd2da0bf72902eb13a808e794f954d9e2745c682a158f6ed0d4ac036",
        "3d1de776df086c1ae9f7049d2bb0c0475ad14185f987e064e8d10dcb2db4a322",
    ]
    static let keyID: UInt32 = 0xB5CB_3B2A
    /// The signed checkpoint; the literal ends in a newline (the empty line before the closing quotes).
    static let note = """
        signer.example.com/audit
        3
        LP73YnWX4AtWSXV3Stco7yEHBnWfym1kE4xt/By/LNo=
        time 1767225600

        — signer.example.com/audit tcs7Kp8Djwxk6f7mdntjBdsLjHgiSgXuifoutc4bmLquzyj4cu3FwgTMEwBQLUY3VuI9POsVCUnmTu+lrTHVPbAiv7Ab

        """

    static func tree() -> MerkleTree {
        var tree = MerkleTree()
        for entry in entries { tree.append(Array(entry.utf8)) }
        return tree
    }

    @Test("leaf hashes, root and the inclusion proof of leaf 1")
    func tree3() throws {
        let tree = Self.tree()
        #expect(tree.leafHashes.map(H.plain) == Self.leafHashes)
        #expect(H.plain(tree.root) == Self.root)
        let proof = try tree.inclusionProof(forLeafAt: 1)
        #expect(proof.hashes.map(H.plain) == Self.proofOfLeaf1)
        try proof.verify(leafHash: try H.hash(Self.leafHashes[1]), root: try H.hash(Self.root))
    }

    @Test("the signed checkpoint's exact text, and it verifies against the key's address")
    func signedCheckpoint() async throws {
        let tree = Self.tree()
        let checkpoint = try Checkpoint(origin: Self.keyName, size: tree.size, root: tree.root, time: Self.time)
        let note = try await SignedNote.sign(checkpoint, with: TestKeys.wallet, keyName: Self.keyName)
        #expect(SignedNote.keyID(keyName: Self.keyName, address: TestKeys.wallet.address) == Self.keyID)
        #expect(note.text == Self.note)
        let address = try Address(TestKeys.alphaAddress)
        #expect(try SignedNote(parsing: Self.note).verify(keyName: Self.keyName, address: address) == checkpoint)
    }
}
