import EthereumPrimitives
import Foundation
import Testing

@testable import SignerKitCommands

@Suite("invalid input: status 65, one stderr line, nothing on stdout")
struct ErrorPathTests {
    /// Rows of eip712_invalid.jsonl and a fragment of the message each must produce (the JSON path).
    static let invalidTypedData: [(name: String, fragment: String)] = [
        ("undefined-type", "types.Order[2].type: "),
        ("address-long", "message.maker: invalid address"),
        ("uint8-overflow", "message.kind: "),
        ("types-missing", "types: missing"),
        ("malformed-json-trailing-comma", "invalid JSON at offset"),
        ("malformed-json-not-object", "expected typed-data object"),
    ]

    static func invalidDocument(_ name: String) throws -> String {
        let row = try #require(
            try Fixtures.rows("eip712_invalid.jsonl", named: Fixtures.invalidTypedDataRowNames).first {
                $0["name"]?.stringValue == name
            })
        if let text = row["typedDataJson"]?.stringValue { return text }
        return try #require(row["typedData"]).serialized
    }

    @Test("no arguments: top-level usage on stderr, status 65")
    func noArguments() async {
        let result = await signerkit([])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Usage: signerkit <command>"))
        for command in CommandRegistry.commands { #expect(result.stderr.contains(command.name)) }
    }

    @Test("the contract's example: a bad nested address names its path")
    func badNestedAddress() async throws {
        let bad = try Fixtures.text("ronin_order.json")
            .replacingOccurrences(of: "0x32950db2a7164ae833121501c797d79e7b79d74c", with: "0x12")
        let directory = try TemporaryDirectory()
        let file = try directory.write("bad.json", bad)
        let result = await signerkit(["typed-data", "hash", file])
        expectInvalid(result)
        #expect(result.stderr == "error: message.assets[0].addr: invalid address \"0x12\"\n")
        #expect(await signerkit(["typed-data", "hash"], stdin: bad).stderr == result.stderr)
    }

    @Test("invalid typed data is rejected by hash, sign and recover", arguments: invalidTypedData)
    func invalidTypedDataEverywhere(name: String, fragment: String) async throws {
        let document = try Self.invalidDocument(name)
        let directory = try TemporaryDirectory()
        let file = try directory.write("typed.json", document)
        let key = try directory.write("key", try Fixtures.typedDataVectors[0].privateKey)
        let signature = try Fixtures.typedDataVectors[0].signature
        expectInvalid(await signerkit(["typed-data", "hash", file]), fragment)
        expectInvalid(await signerkit(["typed-data", "hash", "--json"], stdin: document), fragment)
        expectInvalid(await signerkit(["typed-data", "sign", "--key-file", key, file]), fragment)
        expectInvalid(await signerkit(["recover", "typed-data", file, "--signature", signature]), fragment)
        // In --jsonl the same problem is that line's output.
        let lines = await signerkit(
            ["typed-data", "hash", "--jsonl"], stdin: document.replacingOccurrences(of: "\n", with: " "))
        #expect(lines.status == 1)
        #expect(
            lines.stdoutLines.count == 1 && lines.stdoutLines[0].hasPrefix("error: ")
                && lines.stdoutLines[0].contains(fragment))
    }

    @Test("missing, unreadable and non-UTF-8 input files name the path")
    func inputFiles() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("nope.json")
        let key = try directory.write("key", try Fixtures.typedDataVectors[0].privateKey)
        let signature = try Fixtures.typedDataVectors[0].signature
        expectInvalid(await signerkit(["typed-data", "hash", missing]), "error: \(missing): no such file")
        expectInvalid(await signerkit(["typed-data", "hash", "--jsonl", missing]), "error: \(missing): no such file")
        expectInvalid(
            await signerkit(["typed-data", "sign", "--key-file", key, missing]), "error: \(missing): no such file")
        expectInvalid(
            await signerkit(["recover", "typed-data", missing, "--signature", signature]),
            "error: \(missing): no such file")
        expectInvalid(
            await signerkit(["typed-data", "hash", directory.url.path]), "\(directory.url.path): is a directory")
        let latin1 = try directory.write("latin1.json", bytes: [0x7B, 0x22, 0xE9, 0x22, 0x7D])
        expectInvalid(await signerkit(["typed-data", "hash", latin1]), "\(latin1): not valid UTF-8")
        expectInvalid(
            await signerkit(["typed-data", "hash"], stdinBytes: [0x7B, 0xFF, 0x7D]), "stdin: not valid UTF-8")
        expectInvalid(await signerkit(["typed-data", "hash"], stdin: ""), "invalid JSON")
        // A UTF-8 byte-order mark is fine.
        let vector = try Fixtures.typedDataVectors[0]
        let bom = try directory.write("bom.json", bytes: [0xEF, 0xBB, 0xBF] + Array(vector.typedDataJSON.utf8))
        expectSuccess(await signerkit(["typed-data", "hash", bom]), [vector.digest])
    }

    @Test("bad key files name the file and never echo its contents")
    func keyFiles() async throws {
        let directory = try TemporaryDirectory()
        let vector = try Fixtures.personalVectors[2]
        let digits = keyDigits(vector.privateKey)
        let order = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
        let cases: [(String, String, String)] = [
            ("no-prefix", digits, "invalid private key"),
            ("short", "0x" + digits.dropLast(2), "invalid private key"),
            ("long", "0x" + digits + "00", "invalid private key"),
            ("not-hex", "0x" + digits.dropLast(1) + "g", "invalid private key"),
            ("two-keys", "0x\(digits)\n0x\(digits)\n", "invalid private key"),
            ("zero", "0x" + String(repeating: "0", count: 64), "must be between 1 and n-1"),
            ("order", "0x" + order, "must be between 1 and n-1"),
            ("empty", "", "invalid private key"),
            ("huge", "0x" + digits + String(repeating: " ", count: 300), "invalid private key"),
        ]
        for (name, contents, fragment) in cases {
            let path = try directory.write(name, contents)
            let result = await signerkit(["message", "sign", "--text", "hi", "--key-file", path])
            expectInvalid(result, "error: \(path): ", fragment)
            expectNoKeyMaterial(result, key: vector.privateKey)
            #expect(!result.stderr.contains(order))
        }
        let missing = directory.path("missing.key")
        expectInvalid(
            await signerkit(["message", "sign", "--text", "hi", "--key-file", missing]),
            "error: \(missing): no such file")
        expectInvalid(
            await signerkit(["typed-data", "sign", "--key-file", missing, Fixtures.path("ronin_order.json")]),
            "no such file")
        expectInvalid(await signerkit(["key", "address", "--key-file", directory.url.path]), "is a directory")
    }

    @Test("a key passed on the command line is refused and never echoed")
    func keyOnArgv() async throws {
        let key = try Fixtures.personalVectors[2].privateKey
        let attempts: [[String]] = [
            ["message", "sign", "--text", "hi", key],
            ["message", "sign", "--text", "hi", "--key", key],
            ["message", "sign", "--text", "hi", "--private-key=\(key)"],
            ["message", "sign", "--text", "hi", "--key-file", key],
            ["typed-data", "sign", "--key-file", key],
            ["typed-data", "sign", key, "--key-file", "k"],
            ["key", "address", String(keyDigits(key))],
            [key],
            ["message", key],
        ]
        for arguments in attempts {
            let result = await signerkit(arguments)
            expectInvalid(result)
            expectNoKeyMaterial(result, key: key)
        }
    }

    /// Command-line mistakes and the fragment each message must contain.
    static let usageErrors: [([String], String)] = [
        (["bogus"], "unknown command bogus"),
        (["--bogus"], "unknown option --bogus"),
        (["typed-data"], "missing command: one of hash, sign"),
        (["typed-data", "frobnicate"], "unknown command frobnicate"),
        (["typed-data", "hash", "--bogus"], "unknown option --bogus"),
        (["typed-data", "hash", "-x"], "unknown option -x"),
        (["typed-data", "hash", "--json=yes"], "--json does not take a value"),
        (["typed-data", "hash", "a.json", "b.json"], "unexpected argument b.json"),
        (["typed-data", "hash", "--json", "--json"], "--json given more than once"),
        (["typed-data", "sign", "x.json"], "missing --key-file"),
        (["typed-data", "sign", "--key-file"], "missing value for --key-file"),
        (["message", "sign", "--key-file", "--text", "x"], "missing value for --key-file"),
        (["message", "hash", "--text", "--hex", "0x00"], "missing value for --text"),
        (["typed-data", "sign", "--key-file", "a", "--key-file", "b"], "--key-file given more than once"),
        (["message", "hash"], "one of --text or --hex is required"),
        (["message", "hash", "--text", "a", "--hex", "0x00"], "--text and --hex cannot be used together"),
        (["message", "hash", "--text"], "missing value for --text"),
        (["message", "hash", "--hex", "deadbeef"], "--hex: missing 0x prefix"),
        (["message", "hash", "--hex", "0xabc"], "--hex: odd number of hex digits"),
        (["message", "hash", "--hex", "0xzz"], "--hex: invalid hex character at offset 2"),
        (["message", "hash", "--text", "a", "extra"], "unexpected argument extra"),
        (["message", "sign", "--text", "a"], "missing --key-file"),
        (["message", "sign", "--key-file", "k"], "one of --text or --hex is required"),
        (["recover"], "missing command"),
        (["recover", "message", "--text", "a"], "missing --signature"),
        (["key", "generate", "--out"], "missing value for --out"),
    ]

    @Test("command-line mistakes", arguments: usageErrors)
    func usage(arguments: [String], fragment: String) async {
        expectInvalid(await signerkit(arguments), fragment)
    }

    @Test("usage errors point at the command's --help")
    func usagePointer() async {
        expectInvalid(await signerkit(["typed-data", "hash", "--bogus"]), "see \"signerkit typed-data hash --help\"")
    }

    @Test("missing-flag checks come before reading stdin")
    func failFast() async {
        // stdin holds valid typed data, but the missing key flag is reported (and stdin not needed).
        let result = await signerkit(["typed-data", "sign"], stdin: (try? Fixtures.text("ronin_order.json")) ?? "")
        expectInvalid(result, "missing --key-file")
    }

    @Test("-- ends the flags")
    func doubleDash() async throws {
        let directory = try TemporaryDirectory()
        let vector = try Fixtures.typedDataVectors[0]
        let file = try directory.write("-odd-name.json", vector.typedDataJSON)
        expectSuccess(await signerkit(["typed-data", "hash", "--", file]), [vector.digest])
        expectInvalid(await signerkit(["typed-data", "hash", "--", "--json"]), "--json: no such file")
    }
}

@Suite("--help and -h")
struct HelpTests {
    /// Every command path in the registry, groups included.
    static var allPaths: [[String]] {
        var paths: [[String]] = [[]]
        func walk(_ command: Command, _ path: [String]) {
            paths.append(path)
            if case .group(let subcommands) = command.body {
                for sub in subcommands { walk(sub, path + [sub.name]) }
            }
        }
        for command in CommandRegistry.commands { walk(command, [command.name]) }
        return paths
    }

    @Test("every command and subcommand prints usage to stdout and exits 0", arguments: allPaths)
    func help(path: [String]) async {
        for flag in ["--help", "-h"] {
            let result = await signerkit(path + [flag])
            #expect(result.status == 0, "\(path) \(flag): \(result)")
            #expect(result.stderr.isEmpty)
            #expect(result.stdout.hasPrefix("Usage: " + (["signerkit"] + path).joined(separator: " ")), "\(result)")
            #expect(result.stdout.contains("-h, --help"))
        }
    }

    @Test("help wins wherever it appears among the flags")
    func helpAnywhere() async {
        let result = await signerkit(["typed-data", "sign", "missing.json", "--bogus", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Usage: signerkit typed-data sign"))
        #expect(result.stdout.contains("--key-file FILE"))
        let message = await signerkit(["message", "sign", "-h", "--text", "x"])
        #expect(message.status == 0)
        #expect(message.stdout.contains("--text S"))
        #expect(message.stdout.contains("--hex 0x…"))
    }

    @Test("top-level help lists every command")
    func topLevel() async {
        let result = await signerkit(["--help"])
        #expect(result.status == 0)
        for command in CommandRegistry.commands { #expect(result.stdout.contains("  \(command.name) ")) }
    }
}
