import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Synchronization
import Testing

@testable import SignerKitCommands

/// An in-memory ``CommandIO``: stdin from a byte array, stdout and stderr captured.
final class CapturedIO: CommandIO {
    private struct State {
        var input: [UInt8]
        var offset = 0
        var output = ""
        var error = ""
    }

    private let state: Mutex<State>
    let environment: [String: String]

    init(stdin: [UInt8] = [], environment: [String: String] = [:]) {
        state = Mutex(State(input: stdin))
        self.environment = environment
    }

    func readStandardInput() throws -> [UInt8] {
        state.withLock { state in
            let rest = Array(state.input[state.offset...])
            state.offset = state.input.count
            return rest
        }
    }

    func readStandardInputLine() throws -> [UInt8]? {
        state.withLock { state -> [UInt8]? in
            guard state.offset < state.input.count else { return nil }
            let rest = state.input[state.offset...]
            if let newline = rest.firstIndex(of: 0x0A) {
                state.offset = newline + 1
                return Array(state.input[rest.startIndex..<newline])
            }
            state.offset = state.input.count
            return Array(rest)
        }
    }

    func writeStandardOutput(_ text: String) { state.withLock { $0.output += text } }
    func writeStandardError(_ text: String) { state.withLock { $0.error += text } }

    var output: String { state.withLock { $0.output } }
    var error: String { state.withLock { $0.error } }
}

/// What one invocation produced.
struct CommandResult: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String

    /// stdout split into lines (the final newline does not make an empty line).
    var stdoutLines: [String] { Self.lines(stdout) }
    /// stderr split into lines.
    var stderrLines: [String] { Self.lines(stderr) }

    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    var description: String {
        "status \(status)\nstdout: \(stdout.debugDescription)\nstderr: \(stderr.debugDescription)"
    }
}

/// Runs `signerkit` in-process; `environment` is what the command sees as its environment.
func signerkit(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) async -> CommandResult {
    await signerkit(arguments, stdinBytes: Array(stdin.utf8), environment: environment)
}

/// Runs `signerkit` in-process with raw stdin bytes.
func signerkit(_ arguments: [String], stdinBytes: [UInt8], environment: [String: String] = [:]) async -> CommandResult {
    let io = CapturedIO(stdin: stdinBytes, environment: environment)
    let status = await SignerKitCommandLine.run(arguments, io: io)
    return CommandResult(status: status, stdout: io.output, stderr: io.error)
}

/// Checks the success contract: status 0, exactly `lines` on stdout, nothing on stderr.
func expectSuccess(_ result: CommandResult, _ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == ExitCode.success.rawValue, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stdoutLines == lines, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stderr.isEmpty, "\(result)", sourceLocation: sourceLocation)
}

/// Checks the invalid-input contract: status 65, nothing on stdout, exactly one stderr line
/// `error: …` containing every fragment.
func expectInvalid(_ result: CommandResult, _ fragments: String..., sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == ExitCode.invalidInput.rawValue, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stderr.hasSuffix("\n"), "\(result)", sourceLocation: sourceLocation)
    let lines = result.stderrLines
    #expect(lines.count == 1, "\(result)", sourceLocation: sourceLocation)
    #expect(lines.first?.hasPrefix("error: ") == true, "\(result)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(
            result.stderr.contains(fragment), "expected \(fragment.debugDescription) in \(result)",
            sourceLocation: sourceLocation)
    }
}

/// Fixture files: the shared ground-truth vectors (``Vectors``, one copy for every test target), of which the
/// command tests run a selection of rows by name, and this target's own inputs.
enum Fixtures {
    static var directory: URL {
        Bundle.module.resourceURL?.appendingPathComponent("Fixtures") ?? URL(fileURLWithPath: "/")
    }

    /// A vector file's path, or this target's own fixture `name`.
    static func path(_ name: String) -> String {
        (try? Vectors.path(name)) ?? directory.appendingPathComponent(name).path
    }

    static func text(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

    static func rows(_ name: String) throws -> [JSONValue] {
        try text(name).split(separator: "\n").filter { !$0.isEmpty }.map { try JSONValue(parsing: String($0)) }
    }

    /// The rows of the vector file `name` whose `name` is in `names`, in the order of `names`.
    static func rows(_ name: String, named names: [String]) throws -> [JSONValue] {
        let all = try rows(name)
        return try names.map { wanted in
            guard let row = all.first(where: { $0["name"]?.stringValue == wanted }) else {
                throw FixtureError(description: "\(name) has no row \(wanted)")
            }
            return row
        }
    }

    /// The typed-data rows the command tests run (index 0 is EIP-712's Mail).
    static let typedDataRowNames = [
        "eip712-spec-mail", "metamask-v4-mail-arrays", "ronin-order", "ronin-order-chainid-hex", "permit2-batch-0",
        "seaport-1-1-0",
    ]
    /// The personal_sign rows the command tests run.
    static let personalRowNames = [
        "personal-00", "personal-01", "personal-03", "personal-05", "personal-06", "personal-12", "personal-14",
        "personal-17", "personal-22", "personal-32",
    ]
    /// The transaction rows the command tests run (one per type and EIP-155 form).
    static let transactionRowNames = ["tx-03-legacy", "tx-04-legacy", "tx-15-eip2930", "tx-26-eip1559"]
    /// The invalid typed-data rows the command tests run.
    static let invalidTypedDataRowNames = [
        "undefined-type", "address-long", "uint8-overflow", "types-missing", "malformed-json-trailing-comma",
        "malformed-json-not-object",
    ]

    static var typedDataVectors: [TypedDataVector] {
        get throws { try rows("eip712.jsonl", named: typedDataRowNames).map(TypedDataVector.init) }
    }

    static var personalVectors: [PersonalVector] {
        get throws { try rows("personal_sign.jsonl", named: personalRowNames).map(PersonalVector.init) }
    }

    /// The digest of ronin_order.json (from the shared vectors README).
    static let roninDigest = "0x38859f04b0793cec13bb31f84aa8663a99b48ea14c690e24574fabdd5643320d"
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}

/// A row of eip712.jsonl.
struct TypedDataVector: CustomTestStringConvertible {
    let name, typedDataJSON, privateKey, address, domainSeparator, structHash, digest, signature: String

    init(_ row: JSONValue) throws {
        guard let typedData = row["typedData"] else { throw FixtureError(description: "missing typedData") }
        name = try row.vectorString("name")
        typedDataJSON = typedData.serialized
        privateKey = try row.vectorString("privateKey")
        address = try row.vectorString("address")
        domainSeparator = try row.vectorString("domainSeparator")
        structHash = try row.vectorString("structHash")
        digest = try row.vectorString("digest")
        signature = try row.vectorString("signature")
    }

    var testDescription: String { name }
}

/// A row of personal_sign.jsonl.
struct PersonalVector: CustomTestStringConvertible {
    let name, encoding, message, privateKey, address, digest, signature: String

    init(_ row: JSONValue) throws {
        name = try row.vectorString("name")
        encoding = try row.vectorString("messageEncoding")
        message = try row.vectorString("message")
        privateKey = try row.vectorString("privateKey")
        address = try row.vectorString("address")
        digest = try row.vectorString("digest")
        signature = try row.vectorString("signature")
    }

    /// `--text M` or `--hex M`.
    var messageArguments: [String] { [encoding == "hex" ? "--hex" : "--text", message] }

    var testDescription: String { name }
}

/// A fresh temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `contents` to `name` (mode 0600, as key, password and PIN files must be) and returns
    /// the path.
    @discardableResult
    func write(_ name: String, _ contents: String, mode: Int = 0o600) throws -> String {
        try write(name, bytes: Array(contents.utf8), mode: mode)
    }

    /// Writes raw bytes to `name` (mode 0600 unless given) and returns the path.
    @discardableResult
    func write(_ name: String, bytes: [UInt8], mode: Int = 0o600) throws -> String {
        let path = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }
}

/// The hex digits of a private key without `0x`, lower case, for leak checks.
func keyDigits(_ key: String) -> String {
    String(key.lowercased().dropFirst(key.hasPrefix("0x") ? 2 : 0))
}

/// Checks that neither output stream contains the key's digits (in either case).
func expectNoKeyMaterial(_ result: CommandResult, key: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let digits = keyDigits(key)
    let all = (result.stdout + result.stderr).lowercased()
    #expect(!all.contains(digits), "key material in output: \(result)", sourceLocation: sourceLocation)
    // Nor a long piece of it (e.g. a prefix echoed in an error).
    #expect(
        !all.contains(String(digits.prefix(16))), "key material in output: \(result)", sourceLocation: sourceLocation)
}

/// Waits for a started child process to exit, on a thread of its own: blocking one of Swift's
/// cooperative threads (one per core) for the child's run would starve every test running
/// concurrently. A child still running after `limit` is killed (the children here finish in seconds: the
/// bound only ends a hang); the wait after that is bounded too (see `ChildProcess` for why Foundation may not
/// notice an exit).
func waitForExit(_ process: Process, killAfter limit: Duration = .seconds(30)) async {
    await ChildProcess.onThread {
        if !ChildProcess.awaitExit(process, within: limit) {
            kill(process.processIdentifier, SIGKILL)
            _ = ChildProcess.awaitExit(process, within: .seconds(30))
        }
    }
}
