import EthereumPrimitives
import Foundation
import SignerKitCurl
import Synchronization

/// A local AWS KMS for tests: `scripts/kms-node/server.py`, which runs ministack (its KMS signs
/// `ECC_SECG_P256K1` keys over a given digest) on loopback only and, in front of it, a proxy of the tests' own
/// that checks each request's Signature Version 4 as AWS does (botocore computes the expected signature) and
/// answers as KMS does when it throttles, denies or sees expired credentials. Started as a child process and
/// stopped by ``stop()`` or `deinit`; it also exits when the test process dies.
///
/// The venv is made on first use by `scripts/kms-node/install.sh` (at `$SIGNERKIT_KMS_VENV`, default
/// `<repo>/.build/kms-venv`), once per test process.
public final class LocalKMS: Sendable {
    /// Credentials the proxy knows, and how it treats them.
    public struct Credential: Sendable {
        /// The access key id.
        public var accessKeyID: String
        /// The secret access key.
        public var secretAccessKey: String
        /// The session token the requests must carry (and sign), if any.
        public var sessionToken: String?
        /// Whether the proxy answers `ExpiredTokenException` (after checking the signature).
        public var expired = false
        /// Operations (`TrentService.Sign`) answered `AccessDeniedException`.
        public var denied: [String] = []

        /// A credential of the test's own.
        public init(
            accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expired: Bool = false,
            denied: [String] = []
        ) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
            self.expired = expired
            self.denied = denied
        }
    }

    /// The proxy's endpoint (the only one for clients): `http://127.0.0.1:PORT`.
    public let endpoint: URL
    /// Where the launcher's stderr goes.
    public let logURL: URL
    /// The folder of ministack's state, temporary files and the credentials file.
    public let stateDirectory: URL

    private let process: Mutex<Process?>

    private init(endpoint: URL, logURL: URL, stateDirectory: URL, process: Process) {
        self.endpoint = endpoint
        self.logURL = logURL
        self.stateDirectory = stateDirectory
        self.process = Mutex(process)
    }

    deinit { stop() }

    /// The venv holding ministack and botocore, as install.sh places it.
    public static var venv: URL {
        let configured = ProcessInfo.processInfo.environment["SIGNERKIT_KMS_VENV"].flatMap { $0.isEmpty ? nil : $0 }
        guard let configured else { return LocalEVM.repoRoot.appendingPathComponent(".build/kms-venv") }
        return configured.hasPrefix("/")
            ? URL(fileURLWithPath: configured) : LocalEVM.repoRoot.appendingPathComponent(configured)
    }

    /// Starts ministack and the proxy, which accepts `credentials`.
    public static func start(credentials: [Credential]) async throws -> LocalKMS {
        try await ensureInstalled()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-kms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let file = state.appendingPathComponent("credentials.json")
        var entries: [String: JSONValue] = [:]
        for credential in credentials {
            entries[credential.accessKeyID] = .object(
                JSONObject([
                    "secret": .string(credential.secretAccessKey),
                    "token": credential.sessionToken.map(JSONValue.string) ?? .null,
                    "expired": .bool(credential.expired), "deny": .array(credential.denied.map(JSONValue.string)),
                ]))
        }
        let text = JSONValue.object(
            JSONObject(members: entries.map { JSONObject.Member(key: $0.key, value: $0.value) }))
        guard
            FileManager.default.createFile(
                atPath: file.path, contents: Data(text.serialized.utf8), attributes: [.posixPermissions: 0o600])
        else { throw LocalEVMError(description: "cannot write \(file.path)") }

        let logURL = LocalEVM.makeLog("signerkit-kms")
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let stdout = ChildProcess.makePipe()
        let arguments = [
            LocalEVM.repoRoot.appendingPathComponent("scripts/kms-node/server.py").path, "--state", state.path,
            "--credentials", file.path, "--parent-pid", String(ProcessInfo.processInfo.processIdentifier),
        ]
        let (process, line) = try await LocalEVM.pythonTurns.run { () async throws -> (Process, String?) in
            let process = try LocalEVM.launch(
                venv.appendingPathComponent("bin/python"), arguments, stdout: stdout, stderr: log)
            // ministack imports its services before it listens: a bound against a hang, not a test's wait.
            return (process, await LocalEVM.readLine(from: stdout.fileHandleForReading, within: .seconds(120)))
        }
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)), port > 0,
            let endpoint = URL(string: "http://127.0.0.1:\(port)")
        else {
            await ChildProcess.onThread { ChildProcess.terminate(process) }
            let logText = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw LocalEVMError(
                description: "the local KMS did not start (first line \(line.map { "\"\($0)\"" } ?? "none"), "
                    + "\(LocalEVM.exitDescription(process))); its stderr:\n\(logText.suffix(4000))")
        }
        return LocalKMS(endpoint: endpoint, logURL: logURL, stateDirectory: state, process: process)
    }

    /// Terminates the launcher (which ends ministack), removes its log and its state folder.
    public func stop() {
        ChildProcess.stopOnce(process, removing: logURL)
        try? FileManager.default.removeItem(at: stateDirectory)
    }

    /// The proxy answers the next `count` KMS requests (with valid signatures) `ThrottlingException`.
    public func throttle(next count: Int) async throws {
        _ = try await control("throttle", ["count": .number(String(count))])
    }

    /// The next `count` KMS requests wait in the proxy until `count` are in flight at once, or until `bound`
    /// (real time: a bound against a hang, which leaves ``Stats/maxInFlight`` below `count`) has passed.
    public func hold(count: Int, bound: Duration = .seconds(60)) async throws {
        _ = try await control(
            "hold", ["count": .number(String(count)), "seconds": .number(String(bound.components.seconds))])
    }

    /// What the proxy has seen.
    public struct Stats: Sendable, Equatable {
        /// KMS requests received.
        public var requests: Int
        /// Requests whose SigV4 signature verified.
        public var verified: Int
        /// Requests refused for their signature or credentials.
        public var rejected: Int
        /// Requests answered `ThrottlingException`.
        public var throttled: Int
        /// The most requests in flight at once.
        public var maxInFlight: Int
    }

    /// The proxy's counters.
    public func stats() async throws -> Stats {
        let answer = try await send("GET", "/__control/stats", body: nil)
        let number = { (name: String) -> Int in
            if case .number(let text)? = answer[name], let value = Int(text) { return value }; return -1
        }
        return Stats(
            requests: number("requests"), verified: number("verified"), rejected: number("rejected"),
            throttled: number("throttled"), maxInFlight: number("maxInFlight"))
    }

    private func control(_ command: String, _ body: JSONObject) async throws -> JSONValue {
        try await send("POST", "/__control/\(command)", body: JSONValue.object(body))
    }

    private func send(_ method: String, _ path: String, body: JSONValue?) async throws -> JSONValue {
        let request = HTTPRequest(
            method: method, url: endpoint.appendingPathComponent(String(path.dropFirst())),
            headers: [HTTPHeader("Content-Type", "application/json")], body: body.map { Array($0.serialized.utf8) },
            timeout: .seconds(30))
        let response = try await CurlHTTPTransport.shared.send(request)
        guard response.status == 200 else { throw LocalEVMError(description: "\(path): HTTP \(response.status)") }
        return try JSONValue(parsing: response.body)
    }

    // MARK: - install

    private static let installation = Mutex<Task<Void, any Error>?>(nil)

    /// Runs `scripts/kms-node/install.sh` once per test process.
    public static func ensureInstalled() async throws {
        let task = installation.withLock { current -> Task<Void, any Error> in
            if let current { return current }
            let task = Task {
                try await ChildProcess.onThread {
                    Result {
                        try LocalEVM.runInstaller(
                            script: "scripts/kms-node/install.sh", venvVariable: "SIGNERKIT_KMS_VENV", venv: venv)
                    }
                }.get()
            }
            current = task
            return task
        }
        try await task.value
    }
}
