import EthereumPrimitives
import Foundation
import Testing

@testable import SignerKitCommands

/// One `hd_wallets.jsonl` / `hd_invalid.jsonl` row's string fields.
private func hdRows(_ name: String) throws -> [[String: String]] {
    try Fixtures.rows(name).map { row in
        var fields: [String: String] = [:]
        for member in row.objectValue?.members ?? [] { fields[member.key] = member.value.stringValue }
        return fields
    }
}

@Suite("key mnemonic / derive")
struct HDCommandTests {
    @Test("derive reproduces every vector row's address and key (--path, --passphrase-file, --out)")
    func vectors() async throws {
        let rows = try hdRows("hd_wallets.jsonl")
        #expect(rows.count == 36)
        let directory = try TemporaryDirectory()
        for (number, row) in rows.enumerated() {
            let words = try directory.write("m\(number)", (row["mnemonic"] ?? "") + "\n")
            var arguments = ["key", "derive", "--mnemonic-file", words, "--path", row["path"] ?? ""]
            if let passphrase = row["passphrase"], !passphrase.isEmpty {
                arguments += ["--passphrase-file", try directory.write("p\(number)", passphrase + "\n")]
            }
            let out = directory.path("k\(number).hex")
            let result = await signerkit(arguments + ["--out", out])
            expectSuccess(result, [row["address"] ?? ""])
            #expect(try String(contentsOfFile: out, encoding: .utf8) == (row["privateKey"] ?? "") + "\n")
            let attributes = try FileManager.default.attributesOfItem(atPath: out)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(!result.stdout.contains(String((row["privateKey"] ?? "").dropFirst(2))))
        }
    }

    @Test("invalid mnemonics and paths exit 65 naming the problem")
    func invalid() async throws {
        let expected: [String: String] = [
            "mnemonic-bad-checksum": "checksum",
            "mnemonic-unknown-word": "mnemonic word 6 is an unknown word",
            "mnemonic-eleven-words": "the word count must be",
            "mnemonic-thirteen-words": "has 13 words",
            "mnemonic-empty": "mnemonic is empty",
            "mnemonic-comma-separated": "separate words with spaces",
            "path-no-m": "must start with the segment \"m\"",
            "path-index-too-big": "segment 5 \"2147483648\"",
            "path-negative": "segment 2 \"-60'\"",
            "path-letters": "segment 2 \"eth'\"",
            "path-empty-segment": "segment 2 \"\": empty segment",
            "path-double-apostrophe": "segment 1 \"44''\"",
        ]
        let rows = try hdRows("hd_invalid.jsonl")
        #expect(rows.count == 12)
        let directory = try TemporaryDirectory()
        for (number, row) in rows.enumerated() {
            let name = row["name"] ?? ""
            let words = try directory.write("m\(number)", row["mnemonic"] ?? "")
            let result = await signerkit(["key", "derive", "--mnemonic-file", words, "--path", row["path"] ?? ""])
            expectInvalid(result, try #require(expected[name]))
        }
        let valid = try directory.write(
            "valid", rows[0]["mnemonic"]?.replacingOccurrences(of: "abandon", with: "equip") ?? "")
        expectInvalid(
            await signerkit(["key", "derive", "--mnemonic-file", valid, "--index", "2147483648"]), "--index")
        expectInvalid(
            await signerkit(["key", "derive", "--mnemonic-file", valid, "--index", "1", "--path", "m/0"]),
            "exclude each other")
    }

    @Test("mnemonic writes a 0600 file of N words whose first address derive reproduces")
    func mnemonic() async throws {
        let directory = try TemporaryDirectory()
        for count in [12, 24] {
            let path = directory.path("words\(count)")
            let created = await signerkit(["key", "mnemonic", "--out", path, "--words", String(count)])
            #expect(created.status == 0, "\(created)")
            let address = try #require(created.stdoutLines.first)
            #expect(created.stdoutLines.count == 1 && address.count == 42)
            let contents = try String(contentsOfFile: path, encoding: .utf8)
            #expect(contents.hasSuffix("\n"))
            #expect(contents.split(separator: " ").count == count)
            // The phrase is in the file only: stdout is the address alone, and the words parse back.
            #expect(created.stdout == address + "\n" && created.stderr.isEmpty)
            #expect(
                contents.dropLast().split(separator: " ", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty })
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            expectSuccess(await signerkit(["key", "derive", "--mnemonic-file", path]), [address])
            expectSuccess(await signerkit(["key", "derive", "--mnemonic-file", path, "--index", "0"]), [address])
            let second = await signerkit(["key", "derive", "--mnemonic-file", path, "--index", "1"])
            #expect(second.status == 0 && second.stdoutLines != [address])
            expectInvalid(await signerkit(["key", "mnemonic", "--out", path]), "already exists")
        }
        expectInvalid(
            await signerkit(["key", "mnemonic", "--out", directory.path("x"), "--words", "13"]), "word count")
        expectInvalid(await signerkit(["key", "mnemonic", "--out", "-"]), "--out: must be a file path")
        expectInvalid(await signerkit(["key", "mnemonic"]), "missing --out")
    }

    @Test("derive applies the secret-file rules to the mnemonic and passphrase files")
    func secretFileRules() async throws {
        let directory = try TemporaryDirectory()
        let created = await signerkit(["key", "mnemonic", "--out", directory.path("words")])
        let address = try #require(created.stdoutLines.first)
        let words = try String(contentsOfFile: directory.path("words"), encoding: .utf8)
        let open = try directory.write("open", words, mode: 0o644)
        expectInvalid(await signerkit(["key", "derive", "--mnemonic-file", open]), "mode 0644")
        expectSuccess(
            await signerkit(["key", "derive", "--mnemonic-file", open, "--allow-insecure-permissions"]), [address])
        let link = directory.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.path("words"))
        expectInvalid(await signerkit(["key", "derive", "--mnemonic-file", link]), "symbolic link")
        let passphrase = try directory.write("pass", "secret phrase", mode: 0o640)
        expectInvalid(
            await signerkit([
                "key", "derive", "--mnemonic-file", directory.path("words"), "--passphrase-file", passphrase,
            ]),
            "mode 0640")
        expectInvalid(await signerkit(["key", "derive", "--mnemonic-file", directory.path("none")]), "no such file")
        let withPassphrase = await signerkit([
            "key", "derive", "--mnemonic-file", directory.path("words"), "--passphrase-file",
            try directory.write("pass2", "secret phrase\n"),
        ])
        #expect(withPassphrase.status == 0 && withPassphrase.stdoutLines != [address])
        #expect(!withPassphrase.stdout.contains("secret phrase") && !withPassphrase.stderr.contains("secret phrase"))
    }
}
