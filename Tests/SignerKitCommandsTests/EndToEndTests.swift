import Foundation
import SignerKitTestSupport
import Testing

/// Runs the real `signerkit` executable built next to this test bundle.
enum Binary {
    /// The built executable, or `nil` when it is not in the products directory.
    static let url: URL? = {
        let url = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("signerkit")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }()

    /// Runs it with `arguments`, feeding `stdin`; output is captured through files (no pipe deadlocks).
    /// `environment` is added to (and overrides) this process's environment for the child only.
    /// The wait happens on a thread of its own, not on the cooperative pool (which has one thread per core
    /// and is shared with every test running concurrently).
    static func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) async throws
        -> CommandResult
    {
        let url = try #require(url)
        let directory = try TemporaryDirectory()
        let input = try directory.write("stdin", stdin)
        let outPath = try directory.write("stdout", "")
        let errPath = try directory.write("stderr", "")
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try await ChildProcess.run(process)
        await waitForExit(process)
        #expect(process.terminationReason == .exit, "signerkit crashed: \(arguments)")
        return CommandResult(
            status: process.terminationStatus,
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }
}

@Suite(
    "end to end: the built signerkit binary",
    .enabled(
        if: Binary.url != nil,
        "the signerkit executable is not next to the test bundle; build it with `swift build --product signerkit`"))
struct EndToEndTests {
    @Test("typed data from stdin with '-' and from a file")
    func hash() async throws {
        let ronin = try Fixtures.text("ronin_order.json")
        expectSuccess(try await Binary.run(["typed-data", "hash", "-"], stdin: ronin), [Fixtures.roninDigest])
        expectSuccess(try await Binary.run(["typed-data", "hash"], stdin: ronin), [Fixtures.roninDigest])
        expectSuccess(
            try await Binary.run(["typed-data", "hash", Fixtures.path("ronin_order.json")]), [Fixtures.roninDigest])
    }

    @Test("bad input: status 65, exactly one stderr line, empty stdout")
    func invalid() async throws {
        let bad = try Fixtures.text("ronin_order.json")
            .replacingOccurrences(of: "0x32950db2a7164ae833121501c797d79e7b79d74c", with: "0x12")
        let result = try await Binary.run(["typed-data", "hash", "-"], stdin: bad)
        expectInvalid(result)
        #expect(result.stderr == "error: message.assets[0].addr: invalid address \"0x12\"\n")
        expectInvalid(
            try await Binary.run(["typed-data", "hash", "/nonexistent/x.json"]),
            "error: /nonexistent/x.json: no such file")
        expectInvalid(try await Binary.run(["typed-data", "hash"], stdin: "{not json"), "invalid JSON")
        expectInvalid(
            try await Binary.run(["message", "sign", "--text", "x", "--key-file", "/nonexistent/key"]),
            "/nonexistent/key: no such file")
        expectInvalid(try await Binary.run(["message", "hash", "--hex", "0x1"]), "--hex: odd number of hex digits")
        expectInvalid(try await Binary.run(["typed-data", "hash", "--nope"]), "unknown option --nope")
        expectInvalid(try await Binary.run(["nope"]), "unknown command nope")
    }

    @Test("no arguments: usage on stderr, 65; --help: usage on stdout, 0")
    func usage() async throws {
        let none = try await Binary.run([])
        #expect(none.status == 65)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr.hasPrefix("Usage: signerkit"))
        let help = try await Binary.run(["typed-data", "sign", "--help"])
        #expect(help.status == 0)
        #expect(help.stderr.isEmpty)
        #expect(help.stdout.hasPrefix("Usage: signerkit typed-data sign"))
    }

    @Test("--jsonl over stdin: line-for-line output, exit 1 when a line fails")
    func jsonl() async throws {
        let vectors = try Fixtures.typedDataVectors
        let input = vectors[0].typedDataJSON + "\n\n[]\n" + vectors[1].typedDataJSON + "\n"
        let result = try await Binary.run(["typed-data", "hash", "--jsonl"], stdin: input)
        #expect(result.status == 1)
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdoutLines == [
                vectors[0].digest, "error: expected typed-data object, got array", vectors[1].digest,
            ])
    }

    @Test("generate a key, sign typed data and a message, recover the same address")
    func roundTrip() async throws {
        let directory = try TemporaryDirectory()
        let key = directory.path("throwaway.key")
        let generated = try await Binary.run(["key", "generate", "--out", key])
        #expect(generated.status == 0)
        let address = try #require(generated.stdoutLines.first)
        let keyText = try String(contentsOfFile: key, encoding: .utf8)

        let typed = try await Binary.run(
            ["typed-data", "sign", "--key-file", key, "-"], stdin: try Fixtures.text("ronin_order.json"))
        #expect(typed.status == 0)
        expectNoKeyMaterial(typed, key: keyText.trimmingCharacters(in: .whitespacesAndNewlines))
        let signature = try #require(typed.stdoutLines.first)
        expectSuccess(
            try await Binary.run(["recover", "typed-data", Fixtures.path("ronin_order.json"), "--signature", signature]
            ), [address])

        let message = try await Binary.run(["message", "sign", "--text", "hello from the test", "--key-file", key])
        let messageSignature = try #require(message.stdoutLines.first)
        expectSuccess(
            try await Binary.run([
                "recover", "message", "--text", "hello from the test", "--signature", messageSignature,
            ]), [address])
    }
}
