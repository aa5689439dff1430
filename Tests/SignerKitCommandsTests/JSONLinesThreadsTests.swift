import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
import Synchronization
import Testing

@testable import SignerKitCommands

/// `--jsonl` and `sign --actions` with `--threads`: the same bytes in the same order whatever the number
/// of workers, streamed while input is still being read.
@Suite("Lines and actions on several workers")
struct JSONLinesThreadsTests {
    /// Every eip712.jsonl row (many schemas), invalid rows, blank lines, broken JSON and invalid UTF-8,
    /// each valid row repeated so chunks mix schemas; with the expected digest of each valid line.
    static func mixedInput() throws -> (bytes: [UInt8], digests: [Int: String], errors: Set<Int>) {
        let valid = try Vectors.rows("eip712.jsonl").map(TypedDataVector.init)
        let invalid = try Vectors.rows("eip712_invalid.jsonl").compactMap { row -> String? in
            row["typedDataJson"]?.stringValue ?? row["typedData"]?.serialized
        }
        var bytes: [UInt8] = []
        var digests: [Int: String] = [:]
        var errors: Set<Int> = []
        var outputLine = 0
        func add(_ line: [UInt8], digest: String?) {
            bytes += line + [0x0A]
            if LineReader.isBlank(line) { return }
            if let digest { digests[outputLine] = digest } else { errors.insert(outputLine) }
            outputLine += 1
        }
        for round in 0..<6 {
            for (index, vector) in valid.enumerated() {
                add(Array(vector.typedDataJSON.utf8), digest: vector.digest)
                if index % 7 == round { add(Array(invalid[(index + round) % invalid.count].utf8), digest: nil) }
                if index % 11 == round { add([0x20, 0x09], digest: nil) }
                if index % 13 == round { add([0xFF, 0xFE, 0x7B], digest: nil) }
                if index % 17 == round { add(Array(#"{"types":"#.utf8), digest: nil) }
            }
        }
        return (bytes, digests, errors)
    }

    @Test("typed-data hash --jsonl: identical output for 1, 2 and 8 threads, each line right", arguments: [1, 2, 8])
    func hashOrder(threads: Int) async throws {
        let input = try Self.mixedInput()
        let directory = try TemporaryDirectory()
        let file = try directory.write("mixed.jsonl", bytes: input.bytes)
        for source in ["file", "stdin"] {
            let arguments =
                ["typed-data", "hash", "--jsonl", "--threads", "\(threads)"] + (source == "file" ? [file] : [])
            let result = await signerkit(arguments, stdinBytes: source == "file" ? [] : input.bytes)
            #expect(result.status == ExitCode.failure.rawValue, "\(source)")
            let lines = result.stdoutLines
            #expect(lines.count == input.digests.count + input.errors.count, "\(source)")
            for (index, line) in lines.enumerated() {
                if let digest = input.digests[index] {
                    #expect(line == digest, "\(source) output line \(index)")
                } else {
                    #expect(line.hasPrefix("error: "), "\(source) output line \(index): \(line)")
                }
            }
            let reference = await signerkit(["typed-data", "hash", "--jsonl", "--threads", "1", file])
            #expect(result.stdout == reference.stdout, "\(source): the bytes differ from one thread's")
            #expect(result.stderr.isEmpty)
        }
    }

    @Test("typed-data sign --jsonl: the same signatures in the same order for 1, 2 and 8 threads")
    func signOrder() async throws {
        let vectors = try Vectors.rows("eip712.jsonl").map(TypedDataVector.init)
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", TestKeys.alphaHex)
        var input = ""
        for vector in vectors + vectors { input += vector.typedDataJSON + "\n" }
        input += "[]\n"
        var outputs: [String] = []
        for threads in [1, 2, 8] {
            let result = await signerkit(
                ["typed-data", "sign", "--jsonl", "--threads", "\(threads)", "--key-file", key], stdin: input)
            #expect(result.status == ExitCode.failure.rawValue, "\(result.stderr)")
            let lines = result.stdoutLines
            try #require(lines.count == 2 * vectors.count + 1)
            for (index, vector) in (vectors + vectors).enumerated() {
                let signature = try RecoverableSignature(hex: lines[index])
                let signer = try ECDSA.recoverAddress(prehash: Digest32(hex: vector.digest), signature: signature)
                #expect(signer.checksummed == TestKeys.alphaAddress, "line \(index)")
            }
            #expect(lines.last?.hasPrefix("error: ") == true)
            outputs.append(result.stdout)
        }
        #expect(Set(outputs).count == 1)
    }

    @Test("sign --actions --threads: the same results in action order for 1, 2 and 8 threads")
    func actionsOrder() async throws {
        let vectors = try Fixtures.typedDataVectors
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", TestKeys.alphaHex)
        let mail = try #require(vectors.first)
        // The same Mail typed data, re-addressed to the key's account; and personal_sign texts between.
        var actions: [String] = []
        for index in 0..<24 {
            if index % 3 == 0 {
                let params = JSONValue.array([.string(TestKeys.alphaAddress), .string(mail.typedDataJSON)]).serialized
                actions.append(Self.action(method: "eth_signTypedData_v4", params: params))
            } else {
                let message = "0x" + Array("message \(index)".utf8).map { String(format: "%02x", $0) }.joined()
                let params = JSONValue.array([.string(message), .string(TestKeys.alphaAddress)]).serialized
                actions.append(Self.action(method: "personal_sign", params: params))
            }
        }
        let file = try directory.write("actions.json", "[" + actions.joined(separator: ",") + "]")
        var outputs: [String] = []
        for threads in [1, 2, 8] {
            let result = await signerkit(["sign", "--actions", file, "--key-file", key, "--threads", "\(threads)"])
            #expect(result.status == 0, "\(result)")
            outputs.append(result.stdout)
        }
        #expect(Set(outputs).count == 1)
        let results = try JSONValue(parsing: try #require(outputs.first)).arrayValue ?? []
        #expect(results.count == 24)
    }

    static func action(method: String, params: String) -> String {
        JSONValue.object([
            "walletRpc": .object([
                "chainId": .string("eip155:1"), "method": .string(method), "params": .string(params),
            ])
        ]).serialized
    }

    @Test("--jsonl output streams: the first result is written before the last line is read", arguments: [1, 2])
    func streams(threads: Int) async throws {
        let line = try Vectors.roninOrder().replacingOccurrences(of: "\n", with: "")
        let io = GatedIO(lines: Array(repeating: Array(line.utf8), count: 4_000), gateAt: 3_000)
        let status = await SignerKitCommandLine.run(
            ["typed-data", "hash", "--jsonl", "--threads", "\(threads)"], io: io)
        #expect(status == 0)
        #expect(io.outputBeforeGate, "nothing was written before line 3000 was asked for")
        let lines = io.output.split(separator: "\n")
        #expect(lines.count == 4_000)
        #expect(Set(lines) == [Substring(Fixtures.roninDigest)])
    }

    @Test("--jsonl input that trickles in: each result is written before the next line arrives", arguments: [1, 2])
    func trickles(threads: Int) async throws {
        let line = try Vectors.roninOrder().replacingOccurrences(of: "\n", with: "")
        let io = GatedIO(lines: Array(repeating: Array(line.utf8), count: 20), gateAt: 10, buffered: false)
        let status = await SignerKitCommandLine.run(
            ["typed-data", "hash", "--jsonl", "--threads", "\(threads)"], io: io)
        #expect(status == 0)
        #expect(io.outputBeforeGate, "the first lines' results waited for line 10")
        #expect(io.output.split(separator: "\n").count == 20)
    }

    @Test("--threads: 0, a word and a number past 1024 are refused; without --jsonl it is a usage error")
    func badThreads() async throws {
        for value in ["0", "two", "1025", "-1"] {
            expectInvalid(
                await signerkit(["typed-data", "hash", "--jsonl", "--threads", value], stdin: ""),
                "--threads: expected an integer in 1...1024")
        }
        expectInvalid(
            await signerkit(["typed-data", "hash", "--threads", "2"], stdin: "{}"), "--threads needs --jsonl")
    }

    @Test("file lines: long lines across buffer refills, CR LF, a last line without newline")
    func descriptorLines() throws {
        let directory = try TemporaryDirectory()
        let long = [UInt8](repeating: 0x61, count: 200_000)
        let bytes = Array("a\r\n\n".utf8) + long + [0x0A] + Array("tail".utf8)
        let path = try directory.write("lines", bytes: bytes)
        let reader = try InputSource.file(path).lines(io: CapturedIO())
        var lines: [[UInt8]] = []
        while let line = try reader.next() { lines.append(line) }
        #expect(lines == [Array("a".utf8), [], long, Array("tail".utf8)])
    }
}

/// Standard input that serves `lines` one by one and, when line `gateAt` is asked for, waits (up to
/// 60 s) for something to have been written to standard output. Unless `buffered`, it says every read
/// would wait (a producer writing line by line).
private final class GatedIO: CommandIO {
    private struct State {
        var next = 0
        var output = ""
        var outputBeforeGate = false
    }

    private let lines: [[UInt8]]
    private let gateAt: Int
    private let buffered: Bool
    private let state = Mutex(State())
    let environment: [String: String] = [:]

    init(lines: [[UInt8]], gateAt: Int, buffered: Bool = true) {
        self.lines = lines
        self.gateAt = gateAt
        self.buffered = buffered
    }

    func hasBufferedStandardInputLine() -> Bool { buffered }

    var output: String { state.withLock { $0.output } }
    var outputBeforeGate: Bool { state.withLock { $0.outputBeforeGate } }

    func readStandardInput() throws -> [UInt8] { [] }

    func readStandardInputLine() throws -> [UInt8]? {
        let index = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        if index == gateAt {
            // The worker threads' output arrives at the scheduler's pace; the bound only ends a hang.
            if RealTime.pollBlocking(within: .seconds(30), until: { state.withLock({ !$0.output.isEmpty }) }) {
                state.withLock { $0.outputBeforeGate = true }
            }
        }
        return index < lines.count ? lines[index] : nil
    }

    func writeStandardOutput(_ text: String) { state.withLock { $0.output += text } }
    func writeStandardError(_ text: String) {}
}
