import Foundation
import Testing

@testable import SignerKitCommands

@Suite("typed-data hash / sign")
struct TypedDataCommandTests {
    @Test("hash of the Ronin order fixture")
    func roninDigest() async throws {
        expectSuccess(
            await signerkit(["typed-data", "hash", Fixtures.path("ronin_order.json")]), [Fixtures.roninDigest])
    }

    @Test("hash: file, '-' and no argument (stdin) give the vector digest", arguments: try Fixtures.typedDataVectors)
    func hash(vector: TypedDataVector) async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("typed.json", vector.typedDataJSON)
        expectSuccess(await signerkit(["typed-data", "hash", file]), [vector.digest])
        expectSuccess(await signerkit(["typed-data", "hash", "-"], stdin: vector.typedDataJSON), [vector.digest])
        expectSuccess(await signerkit(["typed-data", "hash"], stdin: vector.typedDataJSON), [vector.digest])
    }

    @Test(
        "hash --json prints the three hashes on one line, flag before or after the file",
        arguments: try Fixtures.typedDataVectors)
    func hashJSON(vector: TypedDataVector) async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("typed.json", vector.typedDataJSON)
        let expected = expectedJSON(vector)
        expectSuccess(await signerkit(["typed-data", "hash", "--json", file]), [expected])
        expectSuccess(await signerkit(["typed-data", "hash", file, "--json"]), [expected])
    }

    @Test("sign reproduces the vector signature (RFC 6979)", arguments: try Fixtures.typedDataVectors)
    func sign(vector: TypedDataVector) async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("typed.json", vector.typedDataJSON)
        let key = try directory.write("key", vector.privateKey + "\n")
        let before = await signerkit(["typed-data", "sign", "--key-file", key, file])
        expectSuccess(before, [vector.signature])
        expectNoKeyMaterial(before, key: vector.privateKey)
        expectSuccess(await signerkit(["typed-data", "sign", file, "--key-file=\(key)"]), [vector.signature])
        expectSuccess(
            await signerkit(["typed-data", "sign", "--key-file", key, "-"], stdin: vector.typedDataJSON),
            [vector.signature])
    }

    @Test("--jsonl: one output line per non-blank input line, exit 1 when any failed")
    func jsonlMixed() async throws {
        let vectors = try Fixtures.typedDataVectors
        let badAddress = try Fixtures.text("ronin_order.json")
            .replacingOccurrences(of: "0x32950db2a7164ae833121501c797d79e7b79d74c", with: "0x12")
            .replacingOccurrences(of: "\n", with: "")
        let input =
            [
                vectors[0].typedDataJSON,
                "",
                "{\"types\": ",
                vectors[1].typedDataJSON + "\r",
                "   ",
                badAddress,
                "[1, 2]",
                vectors[2].typedDataJSON,
            ].joined(separator: "\n") + "\n"
        let expected = [
            vectors[0].digest,
            "error: invalid JSON at offset 10: unexpected end of input",
            vectors[1].digest,
            "error: message.assets[0].addr: invalid address \"0x12\"",
            "error: expected typed-data object, got array",
            vectors[2].digest,
        ]
        let result = await signerkit(["typed-data", "hash", "--jsonl"], stdin: input)
        #expect(result.status == ExitCode.failure.rawValue)
        #expect(result.stderr.isEmpty)
        #expect(result.stdoutLines.count == expected.count)
        for (line, wanted) in zip(result.stdoutLines, expected) {
            if wanted.hasPrefix("error: invalid JSON") {
                #expect(line.hasPrefix("error: invalid JSON at offset"), "\(line)")
            } else {
                #expect(line == wanted)
            }
        }
        // The same from a file, with --json.
        let directory = try TemporaryDirectory()
        let file = try directory.write("in.jsonl", input)
        let fromFile = await signerkit(["typed-data", "hash", "--jsonl", "--json", file])
        #expect(fromFile.status == ExitCode.failure.rawValue)
        #expect(fromFile.stdoutLines.count == expected.count)
        #expect(fromFile.stdoutLines[0] == expectedJSON(vectors[0]))
        #expect(fromFile.stdoutLines[3] == "error: message.assets[0].addr: invalid address \"0x12\"")
    }

    @Test("--jsonl: all good lines exit 0; no final newline; empty input prints nothing")
    func jsonlAllGood() async throws {
        let vectors = try Fixtures.typedDataVectors
        let input = vectors.map(\.typedDataJSON).joined(separator: "\n")
        expectSuccess(await signerkit(["typed-data", "hash", "--jsonl"], stdin: input), vectors.map(\.digest))
        expectSuccess(await signerkit(["typed-data", "hash", "--jsonl", "-"], stdin: "\n\n"), [])
        expectSuccess(await signerkit(["typed-data", "hash", "--jsonl"], stdin: ""), [])
    }

    @Test("--jsonl: error messages with control characters stay on one line")
    func jsonlSingleLineErrors() async throws {
        let input =
            #"{"types":{"EIP712Domain":[],"A":[{"name":"x","type":"Fo\no"}]},"primaryType":"A","domain":{},"message":{"x":1}}"#
        let result = await signerkit(["typed-data", "hash", "--jsonl"], stdin: input + "\n")
        #expect(result.status == ExitCode.failure.rawValue)
        #expect(result.stdoutLines.count == 1)
        #expect(result.stdoutLines.first?.hasPrefix("error: ") == true)
        #expect(result.stdout.contains("\\n"))
        // The same document as a single input: one stderr line.
        expectInvalid(await signerkit(["typed-data", "hash"], stdin: input), "\\n")
    }

    @Test("--jsonl: invalid UTF-8 on a line is that line's error")
    func jsonlInvalidUTF8() async throws {
        let good = try Fixtures.typedDataVectors[0]
        let bytes = Array(good.typedDataJSON.utf8) + [0x0A, 0xFF, 0xFE, 0x0A] + Array(good.typedDataJSON.utf8)
        let result = await signerkit(["typed-data", "hash", "--jsonl"], stdinBytes: bytes)
        #expect(result.status == ExitCode.failure.rawValue)
        #expect(result.stdoutLines == [good.digest, "error: line 2: not valid UTF-8", good.digest])
    }
}

/// The `--json` line expected for a vector.
func expectedJSON(_ vector: TypedDataVector) -> String {
    "{\"domainSeparator\":\"\(vector.domainSeparator)\",\"structHash\":\"\(vector.structHash)\",\"digest\":\"\(vector.digest)\"}"
}
