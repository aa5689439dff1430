import EVMTestSupport
import EthereumPrimitives
import Foundation
import Secp256k1
import Synchronization
import Testing

@testable import PKCS11Signer

/// The process-wide SoftHSM2 fixture.
///
/// Cryptoki is initialised once per process and SoftHSM2 reads `SOFTHSM2_CONF` only then, so
/// every suite shares one module and one private token store, created on first use:
/// `scripts/softhsm-token.sh` writes a config whose tokendir lies in a fresh temporary directory
/// and initialises one token per purpose; `SOFTHSM2_CONF` is set with `setenv` before the module
/// is loaded. Nothing depends on a system-wide token. The directory is removed at exit.
///
/// The set-up runs the script (seconds) on a thread of its own while the tests that need it are
/// suspended: built in a `static let` initialiser instead, it parked every cooperative thread (one
/// running it, the others waiting for the initialiser) and with them every other test in the
/// process, including whichever one had to stop a child process the set-up was waiting for.
enum TestHSM {
    /// The SoftHSM2 module.
    static let modulePath = PKCS11Module.softHSM2Path

    /// The user PIN of every test token (a throwaway token; never use fixed PINs for real ones).
    static let pin = "signerkit-test-pin"

    /// The environment variable the environment-PIN tests read (set during set-up, before any
    /// test runs concurrently with it).
    static let pinVariable = "SIGNERKIT_TEST_PKCS11_PIN"

    /// Tokens, one per purpose so that tests stay independent.
    enum Label {
        /// Logged in; most tests create their keys here (each with its own label).
        static let main = "signerkit-main"
        /// Never logged in before the wrong-PIN test runs.
        static let login = "signerkit-login"
        /// Its storage directory is deleted while a signer is open.
        static let doomed = "signerkit-doomed"
    }

    /// The fixture, or why it could not be built.
    struct Fixture: Sendable {
        let directory: URL
        let pinFile: URL
        let module: PKCS11Module
        /// The doomed token's own directory inside the tokendir.
        let doomedTokenDirectory: URL
    }

    /// The one set-up of the process, once started.
    private static let shared = Mutex<Task<Result<Fixture, SetupError>, Never>?>(nil)

    /// A fixture set-up failure.
    struct SetupError: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }

    /// The shared fixture, built by the first caller; every caller waits for that one set-up.
    static func fixture() async throws -> Fixture {
        let task = shared.withLock { current in
            if let current { return current }
            let task = Task {
                await ChildProcess.onThread {
                    Result { try setUp() }.mapError { SetupError(text: "\($0)") }
                }
            }
            current = task
            return task
        }
        return try await task.value.get()
    }

    /// The main token, logged in.
    static func mainToken() async throws -> PKCS11Token {
        let fixture = try await fixture()
        let token = try fixture.module.token(.label(Label.main))
        try token.login(pin: .file(path: fixture.pinFile.path))
        return token
    }

    /// A label no other test uses.
    static func uniqueLabel(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8))"
    }

    private static func setUp() throws -> Fixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "signerkit-p11-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        cleanupPath = strdup(directory.path)
        atexit {
            if let path = TestHSM.cleanupPath { _ = try? FileManager.default.removeItem(atPath: String(cString: path)) }
        }

        let pinFile = directory.appendingPathComponent("user.pin")
        try Data((pin + "\n").utf8).write(to: pinFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: pinFile.path)

        let tokens = directory.appendingPathComponent("tokens")
        try runScript(directory: directory, pinFile: pinFile, labels: [Label.main, Label.login])
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: tokens.path))
        try runScript(directory: directory, pinFile: pinFile, labels: [Label.doomed])
        let added = Set(try FileManager.default.contentsOfDirectory(atPath: tokens.path)).subtracting(before)
        guard added.count == 1, let doomed = added.first else {
            throw SetupError(text: "expected one new token directory, found \(added)")
        }

        setenv("SOFTHSM2_CONF", directory.appendingPathComponent("softhsm2.conf").path, 1)
        setenv(pinVariable, pin, 1)
        let module = try PKCS11Module.load(path: modulePath)
        return Fixture(
            directory: directory, pinFile: pinFile, module: module,
            doomedTokenDirectory: tokens.appendingPathComponent(doomed))
    }

    /// Runs `scripts/softhsm-token.sh --dir … --pin-file … --label …`.
    ///
    /// Its output goes to files, not pipes: a pipe reader waits for every copy of the write end to
    /// close, and a child another test starts at the same moment may inherit one (see
    /// `ChildProcess` in EVMTestSupport). The wait for its exit is bounded.
    private static func runScript(directory: URL, pinFile: URL, labels: [String]) throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/softhsm-token.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments =
            [script.path, "--dir", directory.path, "--pin-file", pinFile.path, "--module", modulePath]
            + labels.flatMap { ["--label", $0] }
        let outputURL = directory.appendingPathComponent("softhsm-token-\(UUID().uuidString).out")
        let errorURL = directory.appendingPathComponent("softhsm-token-\(UUID().uuidString).err")
        for url in [outputURL, errorURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try ChildProcess.run(process)
        // The script takes seconds.
        guard ChildProcess.awaitExit(process, within: .seconds(120)) else {
            ChildProcess.terminate(process)
            throw SetupError(text: "softhsm-token.sh did not finish within 120 s")
        }
        let stdout = (try? Data(contentsOf: outputURL)) ?? Data()
        let stderr = (try? Data(contentsOf: errorURL)) ?? Data()
        guard process.terminationStatus == 0 else {
            throw SetupError(text: "softhsm-token.sh failed: \(String(decoding: stderr, as: UTF8.self))")
        }
        guard String(decoding: stdout, as: UTF8.self).contains("export SOFTHSM2_CONF=") else {
            throw SetupError(text: "softhsm-token.sh printed no SOFTHSM2_CONF line")
        }
    }

    /// The temporary directory removed by the `atexit` handler.
    nonisolated(unsafe) static var cleanupPath: UnsafeMutablePointer<CChar>?
}

/// Test digests: keccak256 of a short text.
func digest(_ text: String) -> Digest32 {
    Keccak256.hash(utf8: text)
}

/// The private key of the fixed vector (a well-known test key; never fund it).
let vectorKeyHex = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

/// Its address.
let vectorAddress = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"

/// P-256's named-curve OID, DER-encoded.
let p256Parameters: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

/// The suites that use the shared token, one test at a time: key management on a module is
/// serialised (`PKCS11Module.serializingObjectAccess`), and tests running side by side would wait
/// for each other on that lock with Swift's cooperative threads (one per core), holding up every
/// other test in the process meanwhile.
@Suite("PKCS#11 on the shared SoftHSM2 token", .serialized)
enum TokenTests {}
