import EthereumPrimitives
import Foundation
import SignerKitCurl
import Synchronization

/// Local stand-ins for Google Cloud KMS and Azure Key Vault (`scripts/cloud-kms-standins/server.py`), written
/// from the services' public REST references because neither has an official local emulator: both token
/// endpoints (the GCP one verifies the JWT's RS256 signature with the service account's public key), the
/// key and sign calls, each service's error shapes, and s in the high half about every other signature.
/// Listens on 127.0.0.1 only; runs on the EVM node's venv (eth-keys signs, pycryptodome checks RS256), so it
/// installs nothing of its own. Started as a child process and stopped by ``stop()`` or `deinit`; it also
/// exits when the test process dies.
public final class LocalCloudKMS: Sendable {
    /// `http://127.0.0.1:PORT`: the Cloud KMS endpoint, the Entra authority and the vault at once.
    public let endpoint: URL
    /// The service-account key file the stand-in made (`token_uri` pointing at it).
    public let serviceAccountPath: String
    /// The Azure tenant, client id and client secret the stand-in accepts.
    public let azureTenant: String, azureClientID: String, azureClientSecret: String
    /// The folder of the credential files.
    public let stateDirectory: URL
    /// Where the stand-in's stderr goes.
    public let logURL: URL

    private let process: Mutex<Process?>

    private init(
        endpoint: URL, stateDirectory: URL, logURL: URL, process: Process, azure: (String, String, String)
    ) {
        self.endpoint = endpoint
        self.stateDirectory = stateDirectory
        self.logURL = logURL
        serviceAccountPath = stateDirectory.appendingPathComponent("gcp-service-account.json").path
        (azureTenant, azureClientID, azureClientSecret) = azure
        self.process = Mutex(process)
    }

    deinit { stop() }

    /// Starts the stand-ins (a fresh service-account RSA key and Azure client secret each time).
    public static func start() async throws -> LocalCloudKMS {
        try await LocalEVM.ensureInstalled()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-cloudkms-\(UUID())")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let logURL = LocalEVM.makeLog("signerkit-cloudkms")
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let stdout = ChildProcess.makePipe()
        let arguments = [
            LocalEVM.repoRoot.appendingPathComponent("scripts/cloud-kms-standins/server.py").path, "--state",
            state.path, "--parent-pid", String(ProcessInfo.processInfo.processIdentifier),
        ]
        let (process, line) = try await LocalEVM.pythonTurns.run { () async throws -> (Process, String?) in
            let process = try LocalEVM.launch(
                LocalEVM.venv.appendingPathComponent("bin/python"), arguments, stdout: stdout, stderr: log)
            // Generating the RSA key takes a few seconds on a loaded machine: a bound against a hang.
            return (process, await LocalEVM.readLine(from: stdout.fileHandleForReading, within: .seconds(120)))
        }
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)), port > 0,
            let endpoint = URL(string: "http://127.0.0.1:\(port)"),
            let azure = try? JSONValue(
                parsing: Array((try? Data(contentsOf: state.appendingPathComponent("azure.json"))) ?? Data())),
            let tenant = azure["tenant"]?.stringValue, let client = azure["clientId"]?.stringValue,
            let secret = azure["clientSecret"]?.stringValue
        else {
            await ChildProcess.onThread { ChildProcess.terminate(process) }
            let logText = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw LocalEVMError(
                description: "the cloud KMS stand-ins did not start (first line \(line.map { "\"\($0)\"" } ?? "none"), "
                    + "\(LocalEVM.exitDescription(process))); its stderr:\n\(logText.suffix(4000))")
        }
        return LocalCloudKMS(
            endpoint: endpoint, stateDirectory: state, logURL: logURL, process: process, azure: (tenant, client, secret)
        )
    }

    /// Terminates the stand-ins and removes their log and credential files.
    public func stop() {
        ChildProcess.stopOnce(process, removing: logURL)
        try? FileManager.default.removeItem(at: stateDirectory)
    }

    /// The environment the CLI reads: the service-account file, the Azure credentials and authority, the
    /// Cloud KMS endpoint.
    public var environment: [String: String] {
        [
            "GOOGLE_APPLICATION_CREDENTIALS": serviceAccountPath, "GOOGLE_CLOUD_KMS_ENDPOINT": endpoint.absoluteString,
            "AZURE_TENANT_ID": azureTenant, "AZURE_CLIENT_ID": azureClientID, "AZURE_CLIENT_SECRET": azureClientSecret,
            "AZURE_AUTHORITY_HOST": endpoint.absoluteString,
        ]
    }

    /// Which service a key belongs to.
    public enum Service: String, Sendable {
        /// Google Cloud KMS: the name is a key version's resource name.
        case gcp
        /// Azure Key Vault: the name is a key id URL.
        case azure
    }

    /// Creates a key (`secp256k1`, or `p256`: a key of the wrong algorithm or curve); returns its name and,
    /// for secp256k1, its address as eth-keys computes it.
    public func createKey(_ service: Service, kind: String = "secp256k1") async throws -> (
        name: String, address: String?
    ) {
        let answer = try await control("key", ["service": .string(service.rawValue), "kind": .string(kind)])
        guard let name = answer["name"]?.stringValue else { throw LocalEVMError(description: "no key name") }
        return (name, answer["address"]?.stringValue)
    }

    /// Enables or disables the key `name`.
    public func setEnabled(_ name: String, _ enabled: Bool) async throws {
        _ = try await control("enable", ["name": .string(name), "enabled": .bool(enabled)])
    }

    /// The next `count` API requests (not token requests) are answered HTTP `status`.
    public func fail(next count: Int, status: Int) async throws {
        _ = try await control("fail", ["count": .number(String(count)), "status": .number(String(status))])
    }

    /// The next `count` signatures are spoilt: `crc` (GCP: a wrong `signatureCrc32c`), `otherKey` (made by
    /// another key), `malformed` (GCP: no signature; Azure: 63 bytes).
    public func tamper(next count: Int, mode: String) async throws {
        _ = try await control("tamper", ["count": .number(String(count)), "mode": .string(mode)])
    }

    /// Every token issued so far stops being accepted.
    public func revokeTokens() async throws { _ = try await control("revoke", [:]) }

    /// The stand-ins' counters: `gcpTokens`, `azureTokens`, `jwtVerified`, `signatures`, `highS`, `failed`.
    public func stats() async throws -> [String: Int] {
        let answer = try await send("GET", "/__control/stats", body: nil)
        var counters: [String: Int] = [:]
        for member in answer.objectValue?.members ?? [] {
            if case .number(let text) = member.value, let value = Int(text) { counters[member.key] = value }
        }
        return counters
    }

    private func control(_ command: String, _ body: JSONObject) async throws -> JSONValue {
        try await send("POST", "/__control/\(command)", body: .object(body))
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
}
