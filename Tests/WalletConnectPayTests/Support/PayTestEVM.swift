import EthereumPrimitives
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the local EVM node could not be started.
struct PayTestEVMError: Error, CustomStringConvertible {
    let description: String
}

/// `scripts/evm-node/server.py` (eth-tester, py-evm) on 127.0.0.1, as a child process; a minimal copy of
/// SignerKitTests' launcher. The venv is `$SIGNERKIT_EVM_VENV` (default `<repo>/.build/evm-venv`),
/// made by `scripts/evm-node/install.sh` when missing.
final class PayTestEVM: Sendable {
    /// The JSON-RPC endpoint.
    let url: URL
    private let process: Mutex<Process?>

    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var venv: URL {
        let configured = ProcessInfo.processInfo.environment["SIGNERKIT_EVM_VENV"].flatMap { $0.isEmpty ? nil : $0 }
        guard let configured else { return repoRoot.appendingPathComponent(".build/evm-venv") }
        return configured.hasPrefix("/")
            ? URL(fileURLWithPath: configured) : repoRoot.appendingPathComponent(configured)
    }

    private init(url: URL, process: Process) {
        self.url = url
        self.process = Mutex(process)
    }

    deinit { stop() }

    /// Starts a node for `chainId`, funding `fund` with 1000 ether each.
    static func start(chainId: UInt64, fund: [Address]) async throws -> PayTestEVM {
        try await onThread { Result { try install() } }.get()
        var arguments = [
            repoRoot.appendingPathComponent("scripts/evm-node/server.py").path, "--port", "0",
            "--parent-pid", String(ProcessInfo.processInfo.processIdentifier), "--chain-id", String(chainId),
        ]
        for address in fund { arguments += ["--fund", address.checksummed] }
        let stdout = Pipe()
        let process = Process()
        process.executableURL = venv.appendingPathComponent("bin/python")
        process.arguments = arguments
        process.currentDirectoryURL = repoRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let watchdog = Task.detached {
            try await Task.sleep(for: .seconds(90))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        defer { watchdog.cancel() }
        let handle = stdout.fileHandleForReading
        let line = await onThread { () -> String? in
            var buffer: [UInt8] = []
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer.append(contentsOf: chunk)
                if let newline = buffer.firstIndex(of: 0x0A) {
                    return String(decoding: buffer[..<newline], as: UTF8.self)
                }
            }
        }
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)),
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            if process.isRunning { process.terminate() }
            while process.isRunning { usleep(10_000) }  // not waitUntilExit: it can spin forever on Linux Foundation
            throw PayTestEVMError(description: "the local EVM node did not start (first line: \(line ?? "none"))")
        }
        return PayTestEVM(url: url, process: process)
    }

    /// Stops the node (idempotent).
    func stop() {
        guard
            let running = process.withLock({ current -> Process? in
                defer { current = nil }
                return current
            })
        else { return }
        if running.isRunning { running.terminate() }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while running.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if running.isRunning { kill(running.processIdentifier, SIGKILL) }
        while running.isRunning { usleep(10_000) }  // not waitUntilExit: it can spin forever on Linux Foundation
    }

    /// Runs install.sh (it returns at once when the venv is current).
    private static func install() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repoRoot.appendingPathComponent("scripts/evm-node/install.sh").path]
        var environment = ProcessInfo.processInfo.environment
        environment["SIGNERKIT_EVM_VENV"] = venv.path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        while process.isRunning { usleep(10_000) }  // not waitUntilExit: it can spin forever on Linux Foundation
        guard process.terminationStatus == 0 else {
            throw PayTestEVMError(
                description:
                    "scripts/evm-node/install.sh failed (status \(process.terminationStatus)); it needs python3-venv and PyPI"
            )
        }
    }

    /// Blocking work off the cooperative pool.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
