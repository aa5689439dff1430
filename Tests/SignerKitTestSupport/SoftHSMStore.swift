import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throwaway SoftHSM2 token store: a fresh temporary directory (removed when the process exits) with a
/// `softhsm2.conf` whose token directory lies inside it, a PIN file (0600) and tokens initialised by
/// `scripts/softhsm-token.sh`. Nothing touches the system's token directory. Loading the module is the
/// caller's business (SoftHSM2 reads `SOFTHSM2_CONF` once, in `C_Initialize`).
public struct SoftHSMStore: Sendable {
    /// Debian's SoftHSM2 module.
    public static let modulePath = "/usr/lib/softhsm/libsofthsm2.so"

    /// The store directory.
    public let directory: URL
    /// `DIR/softhsm2.conf`.
    public let configuration: String
    /// `DIR/tokens`: one subdirectory per token.
    public let tokensDirectory: URL
    /// The user PIN of every token of the store.
    public let pin: String
    /// A file (0600) holding ``pin`` and a newline.
    public let pinFile: String

    /// Whether SoftHSM2 and its tools are installed.
    public static var available: Bool {
        FileManager.default.isReadableFile(atPath: modulePath) && ToolRun.executable("softhsm2-util") != nil
    }

    /// ``makeBlocking(prefix:pin:labels:)`` from async code: the tools run and are awaited on a thread of their
    /// own, never on Swift's cooperative pool.
    public static func make(prefix: String, pin: String, labels: [String]) async throws -> SoftHSMStore {
        try await ChildProcess.onThread { () -> Result<SoftHSMStore, any Error> in
            Result { try makeBlocking(prefix: prefix, pin: pin, labels: labels) }
        }.get()
    }

    /// Makes a store in a new directory named `prefix-UUID` with tokens labelled `labels`. Blocks the calling
    /// thread while the tools run: call it on a thread of its own (or use ``make(prefix:pin:labels:)``).
    public static func makeBlocking(prefix: String, pin: String, labels: [String]) throws -> SoftHSMStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        TemporaryPaths.removeAtExit(directory.path)
        let pinFile = directory.appendingPathComponent("user.pin").path
        try ToolRun.writePrivate(pin + "\n", to: pinFile)
        let store = SoftHSMStore(
            directory: directory, configuration: directory.appendingPathComponent("softhsm2.conf").path,
            tokensDirectory: directory.appendingPathComponent("tokens"), pin: pin, pinFile: pinFile)
        _ = try store.addTokensBlocking(labels)
        return store
    }

    /// Initialises tokens labelled `labels` in this store; returns the names of their new directories. Blocks
    /// the calling thread while the tools run: call it on a thread of its own.
    @discardableResult
    public func addTokensBlocking(_ labels: [String]) throws -> Set<String> {
        let manager = FileManager.default
        let before = Set((try? manager.contentsOfDirectory(atPath: tokensDirectory.path)) ?? [])
        let output = try ToolRun.runBlocking(
            "/bin/bash",
            [
                ToolRun.repositoryRoot.appendingPathComponent("scripts/softhsm-token.sh").path, "--dir", directory.path,
                "--pin-file", pinFile, "--module", Self.modulePath,
            ] + labels.flatMap { ["--label", $0] })
        guard output.contains("export SOFTHSM2_CONF=") else {
            throw ToolRun.Failure(description: "softhsm-token.sh printed no SOFTHSM2_CONF line")
        }
        return Set(try manager.contentsOfDirectory(atPath: tokensDirectory.path)).subtracting(before)
    }

    /// What a child process needs in its environment to see this store.
    public var environment: [String: String] {
        ["SOFTHSM2_CONF": configuration, "SIGNERKIT_PKCS11_MODULE": Self.modulePath]
    }
}

/// Runs the command-line tools the test set-ups need, the one way: output to files (a pipe's reader
/// waits for every copy of the write end, and a child another test starts may inherit one; see
/// ``ChildProcess``), standard input from /dev/null, the wait bounded. From async code ``run(_:_:environment:within:)``
/// awaits the child on a thread of its own, as ``PythonOracle`` does: a blocked cooperative thread is one of
/// the two a two-core machine has, and every other test of the run waits for it.
public enum ToolRun {
    /// A tool that failed, or did not finish in time.
    public struct Failure: Error, CustomStringConvertible {
        /// What happened, with the tool's standard error.
        public let description: String
        /// A failure described by `description`.
        public init(description: String) { self.description = description }
    }

    /// The package root (this file is Tests/SignerKitTestSupport/SoftHSMStore.swift).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The first executable called `name` on `PATH` or in /usr/bin.
    public static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The bound on a tool's run: it only ends a hang (the tools here finish in a second or two).
    public static let defaultLimit: Duration = .seconds(30)

    /// Runs `tool` to completion within `limit`, awaited on a thread of its own (never on Swift's cooperative
    /// pool); its standard output, or a ``Failure`` with its standard error.
    @discardableResult
    public static func run(
        _ tool: String, _ arguments: [String], environment: [String: String] = [:],
        within limit: Duration = defaultLimit
    ) async throws -> String {
        try await ChildProcess.onThread { () -> Result<String, any Error> in
            Result { try runBlocking(tool, arguments, environment: environment, within: limit) }
        }.get()
    }

    /// ``run(_:_:environment:within:)`` for a plain thread or a synchronous set-up: blocks the calling thread
    /// until the tool has exited.
    @discardableResult
    public static func runBlocking(
        _ tool: String, _ arguments: [String], environment: [String: String] = [:],
        within limit: Duration = defaultLimit
    ) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        for url in [outURL, errURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let output = try FileHandle(forWritingTo: outURL)
        let errors = try FileHandle(forWritingTo: errURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try ChildProcess.runBlocking(process)
        guard ChildProcess.awaitExit(process, within: limit) else {
            ChildProcess.terminate(process)
            throw Failure(description: "\(tool) did not finish within \(limit)")
        }
        let stdout = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let stderr = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
            throw Failure(description: "\(tool) failed (status \(process.terminationStatus)): \(stderr)")
        }
        return stdout
    }

    /// Writes `text` to `path` with mode 0600.
    public static func writePrivate(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }
}

/// Paths removed when the test process exits (one `atexit` handler).
public enum TemporaryPaths {
    private static let paths = Mutex<[String]>([])
    private static let registered: Void = {
        atexit {
            for path in TemporaryPaths.paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }()

    /// Removes `path` (recursively) at exit.
    public static func removeAtExit(_ path: String) {
        _ = registered
        paths.withLock { $0.append(path) }
    }
}
