import EthereumPrimitives
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the local EVM node could not be started.
struct LocalEVMError: Error, CustomStringConvertible {
    /// What went wrong, with the node's log where there is one.
    let description: String
}

/// A real Ethereum node for tests: `scripts/evm-node/server.py` (eth-tester with the py-evm backend)
/// on 127.0.0.1, started as a child process and stopped by ``stop()`` or `deinit`.
///
/// The Python venv is made on first use by `scripts/evm-node/install.sh` (at
/// `$SIGNERKIT_EVM_VENV`, default `<repo>/.build/evm-venv`). The node exits by itself if the test
/// process dies (`--parent-pid`), so a crashed run leaves nothing behind.
final class LocalEVM: Sendable {
    /// The node's JSON-RPC endpoint.
    let url: URL
    /// The port it listens on.
    let port: Int
    /// Where the node's stderr goes (read into errors when it fails).
    let logURL: URL

    private let process: Mutex<Process?>

    /// The package root, found from this file's path (`Tests/SignerKitTests/Support/LocalEVM.swift`).
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The venv holding eth-tester, as install.sh places it.
    static var venv: URL {
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

    /// Starts a node; each address in `fund` gets `fundWei` (default 1000 ether) before it listens.
    static func start(fund: [Address] = [], fundWei: UInt256? = nil, chainId: UInt64? = nil) async throws -> LocalEVM {
        try await ensureInstalled()
        let python = venv.appendingPathComponent("bin/python")
        var arguments = [
            repoRoot.appendingPathComponent("scripts/evm-node/server.py").path,
            "--port", "0", "--parent-pid", String(ProcessInfo.processInfo.processIdentifier),
        ]
        for address in fund { arguments += ["--fund", address.checksummed] }
        if let fundWei { arguments += ["--fund-wei", fundWei.decimalString] }
        if let chainId { arguments += ["--chain-id", String(chainId)] }

        let logURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("signerkit-evm-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let stdout = Pipe()
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        process.currentDirectoryURL = repoRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = log
        do {
            try process.run()
        } catch {
            throw LocalEVMError(description: "cannot start \(python.path): \(error)")
        }
        let line = await readLine(from: stdout.fileHandleForReading, orKill: process, within: .seconds(90))
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)), port > 0
        else {
            end(process)
            let logText = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw LocalEVMError(
                description: "the local EVM node did not start (first line \(line.map { "\"\($0)\"" } ?? "none"), "
                    + "exit status \(process.terminationStatus)); its stderr:\n\(logText.suffix(4000))")
        }
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            throw LocalEVMError(description: "bad port \(port)")
        }
        return LocalEVM(url: url, port: port, logURL: logURL, process: process)
    }

    /// Terminates the node (idempotent) and removes its log.
    func stop() {
        let running = process.withLock { current -> Process? in
            defer { current = nil }
            return current
        }
        guard let running else { return }
        Self.end(running)
        try? FileManager.default.removeItem(at: logURL)
    }

    /// SIGTERM, then SIGKILL if the process is still there after a few seconds; then reaps it.
    private static func end(_ process: Process) {
        if process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { usleep(10_000) }  // not waitUntilExit: it can spin forever on Linux Foundation
    }

    // MARK: - install

    private static let installation = Mutex<Task<Void, any Error>?>(nil)

    /// Runs `scripts/evm-node/install.sh` once per test process (it returns at once when the venv is current).
    static func ensureInstalled() async throws {
        let task = installation.withLock { current -> Task<Void, any Error> in
            if let current { return current }
            let task = Task { try await onThread { Result { try runInstaller() } }.get() }
            current = task
            return task
        }
        try await task.value
    }

    private static func runInstaller() throws {
        let script = repoRoot.appendingPathComponent("scripts/evm-node/install.sh")
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("signerkit-evm-install-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let log = try FileHandle(forWritingTo: output)
        defer { try? log.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path]
        process.currentDirectoryURL = repoRoot
        var environment = ProcessInfo.processInfo.environment
        environment["SIGNERKIT_EVM_VENV"] = venv.path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        do {
            try process.run()
        } catch {
            throw LocalEVMError(description: "cannot run \(script.path): \(error)")
        }
        while process.isRunning { usleep(10_000) }  // not waitUntilExit: it can spin forever on Linux Foundation
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw LocalEVMError(
                description:
                    "scripts/evm-node/install.sh failed (status \(process.terminationStatus)); the local EVM node "
                    + "needs python3 with venv and pip (Debian: python3-venv python3-pip) and PyPI. Its output:\n\(text.suffix(4000))"
            )
        }
    }

    // MARK: - reading the first line

    /// The first line the child writes, or `nil` at end of file; kills `process` if none comes within `limit`.
    private static func readLine(from handle: FileHandle, orKill process: Process, within limit: Duration) async
        -> String?
    {
        let watchdog = Task.detached {
            try await Task.sleep(for: limit)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        defer { watchdog.cancel() }
        return await onThread { () -> String? in
            var buffer: [UInt8] = []
            while true {
                let chunk = handle.availableData  // blocks; empty at end of file
                if chunk.isEmpty { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
                buffer.append(contentsOf: chunk)
                if let newline = buffer.firstIndex(of: 0x0A) {
                    return String(decoding: buffer[..<newline], as: UTF8.self)
                }
            }
        }
    }

    /// Runs blocking work (pipe reads, waiting for the installer) on its own thread, off Swift's
    /// cooperative pool (two threads on a two-core machine), and resumes with its result.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.start()
        }
    }
}
