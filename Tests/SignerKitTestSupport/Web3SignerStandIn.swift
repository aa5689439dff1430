import Foundation
import Synchronization

/// `scripts/web3signer-standin/server.py` on 127.0.0.1, started as a child process with the local EVM node's
/// venv (eth-account): a stand-in for web3signer's eth1 API written from its documentation (no web3signer
/// runs in the tests), holding the given keys, honest or lying (``Lie``). It exits by itself when the test
/// process dies.
public final class Web3SignerStandIn: Sendable {
    /// What a lying stand-in returns instead of the truth (the script's `--lie`).
    public enum Lie: String, Sendable, CaseIterable {
        /// Every signature made by another key.
        case otherKey = "other-key"
        /// A correctly signed transaction whose value is one wei more than asked.
        case tamperedTransaction = "tampered-tx"
        /// Message and typed-data signatures with v flipped.
        case wrongV = "wrong-v"
        /// Message and typed-data signatures with s replaced by n − s (v flipped: the same key, high s).
        case highS = "high-s"
    }

    /// Where clients connect.
    public let url: URL
    private let process: Mutex<Process?>
    private let logURL: URL

    private init(url: URL, process: Process, logURL: URL) {
        self.url = url
        self.process = Mutex(process)
        self.logURL = logURL
    }

    deinit { stop() }

    /// Starts a stand-in holding the 0x-hex private keys `keys`, signing transactions without a chain id for
    /// `chainId`, lying as `lie` says (honest when `nil`).
    public static func start(keys: [String], chainId: UInt64, lie: Lie? = nil) async throws -> Web3SignerStandIn {
        try await LocalEVM.ensureInstalled()
        var keyFiles: [URL] = []
        var arguments = [
            LocalEVM.repoRoot.appendingPathComponent("scripts/web3signer-standin/server.py").path,
            "--parent-pid", String(ProcessInfo.processInfo.processIdentifier), "--chain-id", String(chainId),
        ]
        for key in keys {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-w3s-\(UUID()).hex")
            try ToolRun.writePrivate(key + "\n", to: file.path)
            keyFiles.append(file)
            arguments += ["--key-file", file.path]
        }
        if let lie { arguments += ["--lie", lie.rawValue] }
        let logURL = LocalEVM.makeLog("signerkit-w3s")
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let stdout = ChildProcess.makePipe()
        // A Python process's start (eth-account's imports) takes a second of CPU; the bound only ends a hang.
        let (process, line) = try await LocalEVM.pythonTurns.run { () async throws -> (Process, String?) in
            let process = try LocalEVM.launch(
                LocalEVM.venv.appendingPathComponent("bin/python"), arguments, stdout: stdout, stderr: log)
            return (process, await LocalEVM.readLine(from: stdout.fileHandleForReading, within: .seconds(30)))
        }
        // The script read its keys before it listened.
        for file in keyFiles { try? FileManager.default.removeItem(at: file) }
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)), port > 0,
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            await ChildProcess.onThread { ChildProcess.terminate(process) }
            let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw LocalEVMError(description: "the web3signer stand-in did not start: \(text.suffix(2000))")
        }
        return Web3SignerStandIn(url: url, process: process, logURL: logURL)
    }

    /// Stops the stand-in (idempotent).
    public func stop() {
        ChildProcess.stopOnce(process, removing: logURL)
    }
}
