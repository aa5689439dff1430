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

/// A local Ethereum node for `sign --actions --rpc-url`: `scripts/evm-node/server.py` (eth-tester,
/// py-evm) on 127.0.0.1, started as a child process and stopped by ``stop()`` or `deinit`.
///
/// The minimal launcher of Tests/SignerKitTests/Support/LocalEVM.swift (test targets cannot share
/// files): the venv is made by `scripts/evm-node/install.sh` at `$SIGNERKIT_EVM_VENV` (default
/// `<repo>/.build/evm-venv`); the node exits by itself if the test process dies (`--parent-pid`).
final class TestNode: Sendable {
    /// The JSON-RPC endpoint.
    let url: URL

    private let process: Mutex<Process?>
    private let logURL: URL

    /// The package root (this file is Tests/SignerKitCommandsTests/Support/TestNode.swift).
    static let repoRoot = CLIHSM.repoRoot

    /// The venv holding eth-tester.
    static var venv: URL {
        let configured = ProcessInfo.processInfo.environment["SIGNERKIT_EVM_VENV"].flatMap { $0.isEmpty ? nil : $0 }
        guard let configured else { return repoRoot.appendingPathComponent(".build/evm-venv") }
        return configured.hasPrefix("/") ? URL(fileURLWithPath: configured) : repoRoot.appendingPathComponent(configured)
    }

    private init(url: URL, logURL: URL, process: Process) {
        self.url = url
        self.logURL = logURL
        self.process = Mutex(process)
    }

    deinit { stop() }

    /// Starts a node with chain id `chainId`; each address in `fund` gets 1000 ether.
    static func start(chainId: UInt64, fund: [String]) async throws -> TestNode {
        try await installOnce()
        let python = venv.appendingPathComponent("bin/python")
        var arguments = [
            repoRoot.appendingPathComponent("scripts/evm-node/server.py").path, "--port", "0",
            "--parent-pid", String(ProcessInfo.processInfo.processIdentifier), "--chain-id", String(chainId),
        ]
        for address in fund { arguments += ["--fund", address] }
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-cli-evm-\(UUID().uuidString).log")
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
        try process.run()
        let reader = stdout.fileHandleForReading
        let line = await onThread { () -> String? in
            var buffer: [UInt8] = []
            while true {
                let chunk = reader.availableData  // blocks; empty at end of file
                if chunk.isEmpty { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
                buffer.append(contentsOf: chunk)
                if let newline = buffer.firstIndex(of: 0x0A) { return String(decoding: buffer[..<newline], as: UTF8.self) }
            }
        }
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)), port > 0,
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            end(process)
            let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw CLIHSMError(description: "the local EVM node did not start (\(line ?? "no output")):\n\(text.suffix(4000))")
        }
        return TestNode(url: url, logURL: logURL, process: process)
    }

    /// Stops the node (idempotent).
    func stop() {
        let running = process.withLock { current -> Process? in
            defer { current = nil }
            return current
        }
        guard let running else { return }
        Self.end(running)
        try? FileManager.default.removeItem(at: logURL)
    }

    /// One JSON-RPC call; the `result` member.
    func call(_ method: String, _ params: [JSONValue]) async throws -> JSONValue {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body = JSONValue.object(
            JSONObject(["jsonrpc": .string("2.0"), "id": .number("1"), "method": .string(method), "params": .array(params)]))
        request.httpBody = Data(body.serialized.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let response = try JSONValue(parsing: [UInt8](data))
        guard let result = response["result"] else { throw CLIHSMError(description: "\(method): \(response.serialized)") }
        return result
    }

    /// SIGTERM, then SIGKILL after five seconds; reaps the process.
    private static func end(_ process: Process) {
        if process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { usleep(10_000) }  // not waitUntilExit: it can spin forever on Linux Foundation
    }

    private static let installation = Mutex<Task<Void, any Error>?>(nil)

    /// Runs `scripts/evm-node/install.sh` once per process (it returns at once when the venv is current).
    private static func installOnce() async throws {
        let task = installation.withLock { current -> Task<Void, any Error> in
            if let current { return current }
            let task = Task {
                try await onThread { () -> Result<Void, any Error> in
                    Result {
                        _ = try CLIHSM.run(
                            "/bin/bash", [repoRoot.appendingPathComponent("scripts/evm-node/install.sh").path],
                            environment: ["SIGNERKIT_EVM_VENV": venv.path])
                    }
                }.get()
            }
            current = task
            return task
        }
        try await task.value
    }

    /// Runs blocking work on its own thread, off Swift's cooperative pool.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
