import EthereumPrimitives
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the local EVM node could not be started, or what it answered instead of a result.
public struct LocalEVMError: Error, CustomStringConvertible {
    /// What went wrong, with the node's log where there is one.
    public let description: String

    /// An error that says `description`.
    public init(description: String) {
        self.description = description
    }
}

/// A real Ethereum node for tests: `scripts/evm-node/server.py` (eth-tester with the py-evm backend)
/// on 127.0.0.1, started as a child process and stopped by ``stop()`` or `deinit`.
///
/// The one launcher of the test targets that talk to a node (SignerKitTests, SignerKitCommandsTests,
/// WalletConnectPayTests). The Python venv is made on first use by `scripts/evm-node/install.sh` (at
/// `$SIGNERKIT_EVM_VENV`, default `<repo>/.build/evm-venv`), once per test process. The node exits
/// by itself if the test process dies (`--parent-pid`), so a crashed run leaves nothing behind.
///
/// Linux pitfalls shape the code: `Process.waitUntilExit` can spin forever under load, so exits
/// are awaited by polling `isRunning`, with a bound; nothing here blocks Swift's cooperative pool
/// (two threads on a two-core machine) while waiting for a child: blocking waits run on a thread of
/// their own; and children are started through ``ChildProcess`` so that none inherits another's
/// descriptors, and the first line is read with a deadline that holds even if one does.
public final class LocalEVM: Sendable {
    /// The node's JSON-RPC endpoint.
    public let url: URL
    /// The port it listens on.
    public let port: Int
    /// Where the node's stderr goes (read into errors when it fails).
    public let logURL: URL

    private let process: Mutex<Process?>

    /// The package root, found from this file's path (`Tests/SignerKitTestSupport/LocalEVM.swift`).
    public static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The venv holding eth-tester, as install.sh places it.
    public static var venv: URL {
        let configured = ProcessInfo.processInfo.environment["SIGNERKIT_EVM_VENV"].flatMap { $0.isEmpty ? nil : $0 }
        guard let configured else { return repoRoot.appendingPathComponent(".build/evm-venv") }
        return configured.hasPrefix("/")
            ? URL(fileURLWithPath: configured) : repoRoot.appendingPathComponent(configured)
    }

    private init(url: URL, port: Int, logURL: URL, process: Process) {
        self.url = url
        self.port = port
        self.logURL = logURL
        self.process = Mutex(process)
    }

    deinit { stop() }

    /// Starts a node with chain id `chainId` (the server's default when `nil`); each address in
    /// `fund` gets `fundWei` (default 1000 ether) before it listens.
    public static func start(fund: [Address] = [], fundWei: UInt256? = nil, chainId: UInt64? = nil) async throws
        -> LocalEVM
    {
        try await ensureInstalled()
        var arguments = [
            repoRoot.appendingPathComponent("scripts/evm-node/server.py").path,
            "--port", "0", "--parent-pid", String(ProcessInfo.processInfo.processIdentifier),
        ]
        for address in fund { arguments += ["--fund", address.checksummed] }
        if let fundWei { arguments += ["--fund-wei", fundWei.decimalString] }
        if let chainId { arguments += ["--chain-id", String(chainId)] }

        let logURL = makeLog("signerkit-evm")
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let stdout = ChildProcess.makePipe()
        // A few nodes start at a time (the others wait their turn): each listens about a second of CPU after it
        // starts, and the bound only ends a hang.
        let (process, line) = try await pythonTurns.run { () async throws -> (Process, String?) in
            let process = try launch(venv.appendingPathComponent("bin/python"), arguments, stdout: stdout, stderr: log)
            return (process, await readLine(from: stdout.fileHandleForReading, within: .seconds(30)))
        }
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)), port > 0,
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            await ChildProcess.onThread { ChildProcess.terminate(process) }
            let logText = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw LocalEVMError(
                description: "the local EVM node did not start (first line \(line.map { "\"\($0)\"" } ?? "none"), "
                    + "\(exitDescription(process))); its stderr:\n\(logText.suffix(4000))")
        }
        return LocalEVM(url: url, port: port, logURL: logURL, process: process)
    }

    /// Terminates the node (idempotent: SIGTERM now, SIGKILL after five seconds and the reaping on
    /// a thread of its own, so a `defer { evm.stop() }` never holds a cooperative thread) and
    /// removes its log.
    public func stop() {
        ChildProcess.stopOnce(process, removing: logURL)
    }

    /// One JSON-RPC call to the node; the `result` member of its answer.
    public func call(_ method: String, _ params: [JSONValue]) async throws -> JSONValue {
        var request = URLRequest(url: url, timeoutInterval: 30)  // a hang bound (URLSession's default is 60 s)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body = JSONValue.object(
            JSONObject([
                "jsonrpc": .string("2.0"), "id": .number("1"), "method": .string(method), "params": .array(params),
            ]))
        request.httpBody = Data(body.serialized.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let response = try JSONValue(parsing: [UInt8](data))
        guard let result = response["result"] else {
            throw LocalEVMError(description: "\(method): \(response.serialized)")
        }
        return result
    }

    // MARK: - child processes

    /// The turns of the Python processes the tests start (nodes, oracles): two at a time, one per core.
    public static let pythonTurns = Turns(width: 2)

    /// An empty file in the temporary directory, named `<prefix>-<UUID>.log`.
    static func makeLog(_ prefix: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return url
    }

    /// Runs `executable` with `arguments` in the package root, stdin from /dev/null.
    static func launch(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, stdout: Any, stderr: FileHandle
    ) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repoRoot
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try ChildProcess.runBlocking(process)
        } catch {
            throw LocalEVMError(description: "cannot start \(executable.path) \(arguments.first ?? ""): \(error)")
        }
        return process
    }

    /// "exit status N", or why there is none (a child whose exit Foundation has not seen has none).
    static func exitDescription(_ process: Process) -> String {
        process.isRunning ? "still running" : "exit status \(process.terminationStatus)"
    }

    // MARK: - install

    private static let installation = Mutex<Task<Void, any Error>?>(nil)

    /// Runs `scripts/evm-node/install.sh` once per test process (it returns at once when the venv is
    /// current); every caller waits for that one run and gets its outcome.
    public static func ensureInstalled() async throws {
        let task = installation.withLock { current -> Task<Void, any Error> in
            if let current { return current }
            let task = Task { try await ChildProcess.onThread { Result { try runInstaller() } }.get() }
            current = task
            return task
        }
        try await task.value
    }

    /// Runs install.sh to completion (blocking: call it on a thread of its own).
    private static func runInstaller() throws {
        try runInstaller(script: "scripts/evm-node/install.sh", venvVariable: "SIGNERKIT_EVM_VENV", venv: venv)
    }

    /// Runs the venv installer `script` (relative to the package root) to completion, with `venvVariable` set
    /// to `venv`: the local EVM node's and the local KMS's. Blocking: call it on a thread of its own.
    static func runInstaller(script: String, venvVariable: String, venv: URL) throws {
        let script = repoRoot.appendingPathComponent(script)
        let output = makeLog("signerkit-venv-install")
        defer { try? FileManager.default.removeItem(at: output) }
        let log = try FileHandle(forWritingTo: output)
        defer { try? log.close() }
        var environment = ProcessInfo.processInfo.environment
        environment[venvVariable] = venv.path
        let process = try launch(
            URL(fileURLWithPath: "/bin/bash"), [script.path], environment: environment, stdout: log, stderr: log)
        // Provisioning, not a test's wait: it returns at once when the venv is current (scripts/test.sh makes it
        // before the tests run); only a fresh checkout's first run downloads, and pip may take minutes for that.
        guard ChildProcess.awaitExit(process, within: .seconds(1800)) else {
            ChildProcess.terminate(process)
            throw LocalEVMError(description: "\(script.path) did not finish within 30 minutes")
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw LocalEVMError(
                description:
                    "\(script.path) failed (status \(process.terminationStatus)); the tests' Python tooling "
                    + "needs python3 with venv and pip (Debian: python3-venv python3-pip) and PyPI. Its output:\n"
                    + "\(text.suffix(4000))"
            )
        }
    }

    // MARK: - reading the first line

    /// The first line the child writes, or `nil` at end of file or when none comes within `limit`
    /// (read on a thread of its own, see ``ChildProcess/firstLine(from:within:)``).
    static func readLine(from handle: FileHandle, within limit: Duration) async -> String? {
        let descriptor = handle.fileDescriptor
        return await ChildProcess.onThread { ChildProcess.firstLine(from: descriptor, within: limit) }
    }
}
