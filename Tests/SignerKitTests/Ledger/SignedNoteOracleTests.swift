import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// The pinned worked example read by other tools: Python's hashlib and base64 for the tree, the root line and
/// the key ID; eth-account for the signature, as `personal_sign` over the note text. What a `signerkit` user
/// does with any Ethereum tool, and nothing of SignerKit's code involved.
@Suite(
    "Signed checkpoint against eth-account",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: LocalEVM.venv.appendingPathComponent("bin/python").path),
        "the EVM venv (eth-account) is not installed"))
struct SignedNoteOracleTests {
    typealias Example = LedgerWorkedExampleTests

    static let script = """
        import base64, hashlib, json, sys
        from eth_account import Account
        from eth_account.messages import encode_defunct

        case = json.load(sys.stdin)
        note = case["note"]
        assert note.endswith("\\n")
        lines = note[:-1].split("\\n")
        blank = len(lines) - 1 - lines[::-1].index("")
        body = "".join(line + "\\n" for line in lines[:blank])
        origin, size, root, time = body[:-1].split("\\n")

        def leaf(entry):
            return hashlib.sha256(b"\\x00" + entry).digest()

        def node(left, right):
            return hashlib.sha256(b"\\x01" + left + right).digest()

        leaves = [leaf(e.encode()) for e in case["entries"]]
        expected_root = node(node(leaves[0], leaves[1]), leaves[2])

        signatures = []
        for line in lines[blank + 1:]:
            assert line.startswith("\\u2014 ")
            name, encoded = line[2:].split(" ")
            raw = base64.b64decode(encoded, validate=True)
            key_id = raw[:4].hex()
            address = case["address"]
            expected_id = hashlib.sha256(
                name.encode() + b"\\n" + b"\\xff" + b"signerkit/eip191-secp256k1" + bytes.fromhex(address[2:])
            ).digest()[:4].hex()
            recovered = Account.recover_message(encode_defunct(text=body), signature=raw[4:])
            signatures.append({"name": name, "keyID": key_id, "expectedKeyID": expected_id, "recovered": recovered})

        print(json.dumps({
            "origin": origin, "size": size, "time": time,
            "rootMatches": base64.b64decode(root, validate=True) == expected_root,
            "signatures": signatures,
        }))
        """

    @Test("hashlib and eth-account read the pinned note: root, key ID and the signer's address")
    func pinnedNote() async throws {
        let answer = try await PythonOracle.run(
            Self.script,
            input: .object([
                "note": .string(Example.note), "entries": .array(Example.entries.map(JSONValue.string)),
                "address": .string(TestKeys.alphaAddress),
            ]))
        #expect(answer["origin"]?.stringValue == Example.keyName)
        #expect(answer["size"]?.stringValue == "3")
        #expect(answer["time"]?.stringValue == "time \(Example.time)")
        #expect(answer["rootMatches"] == .bool(true))
        let signatures = try #require(answer["signatures"]?.arrayValue)
        try #require(signatures.count == 1)
        let signature = signatures[0]
        #expect(signature["name"]?.stringValue == Example.keyName)
        #expect(signature["keyID"]?.stringValue == "b5cb3b2a")
        #expect(signature["expectedKeyID"]?.stringValue == "b5cb3b2a")
        #expect(signature["recovered"]?.stringValue == TestKeys.alphaAddress)
    }
}
