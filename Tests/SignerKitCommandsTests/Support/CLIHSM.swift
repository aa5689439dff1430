import Foundation
import SignerKitTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Throwaway SoftHSM2 token stores for the PKCS#11 command tests.
///
/// SoftHSM2 reads `SOFTHSM2_CONF` once, in `C_Initialize`, and Cryptoki is initialised once per
/// process. Every test target of the package runs in one test process, where the PKCS#11 signer
/// tests initialise SoftHSM2 with their own store; loading it here as well would make one of the
/// two stores invisible. So this target never loads SoftHSM2 in the main test process:
///
/// - in-process command tests (``PKCS11InProcessTests``) run in a child test process of their
///   own (``childMarker`` set), which creates one store, sets `SOFTHSM2_CONF` in its process
///   environment before anything loads the module, and passes it in the `CommandIO` environment;
/// - end-to-end tests run the `signerkit` binary with `SOFTHSM2_CONF` in the child's environment.
///
/// Each store is made by `scripts/softhsm-token.sh` in a fresh temporary directory (removed at
/// exit) and never touches the system token directory.
enum CLIHSM {
    /// The SoftHSM2 module.
    static let modulePath = SoftHSMStore.modulePath

    /// The user PIN of every test token (throwaway tokens only).
    static let pin = "cli-test-pin-8472"

    /// Set in the environment of the child test process that runs the in-process PKCS#11 tests.
    static let childMarker = "SIGNERKIT_CLI_PKCS11_CHILD"

    /// Token labels.
    enum Label {
        /// Keys are imported, generated and signed with here (each test uses its own key labels).
        static let main = "cli-main"
        /// Only ever given wrong PINs.
        static let login = "cli-login"
    }

    /// The label of the P-256 key made on the main token with OpenSC's pkcs11-tool, if available.
    static let p256Label = "p256-key"

    /// Whether SoftHSM2 and its tools are installed.
    static var available: Bool { SoftHSMStore.available }

    /// Whether this process is the child that runs the in-process PKCS#11 tests.
    static var isChild: Bool { ProcessInfo.processInfo.environment[childMarker] == "1" }

    /// One token store.
    struct Store: Sendable {
        /// The store directory.
        let directory: URL
        /// `DIR/softhsm2.conf`.
        let configuration: String
        /// A file holding ``CLIHSM/pin``.
        let pinFile: String
        /// A file holding a wrong PIN.
        let wrongPinFile: String
        /// Whether the main token has a P-256 key labelled ``CLIHSM/p256Label``.
        let hasP256Key: Bool

        /// What a command (or the `signerkit` child) needs in its environment.
        var environment: [String: String] {
            ["SOFTHSM2_CONF": configuration, "SIGNERKIT_PKCS11_MODULE": CLIHSM.modulePath]
        }

        /// `--module`-style flags for the `pkcs11` commands on `token`.
        func tokenArguments(_ token: String = Label.main, pinFile: String? = nil) -> [String] {
            ["--module", CLIHSM.modulePath, "--token-label", token, "--pin-file", pinFile ?? self.pinFile]
        }

        /// The PKCS#11 key-source flags of the signing commands.
        func signingArguments(keyLabel: String, token: String = Label.main, pinFile: String? = nil) -> [String] {
            [
                "--pkcs11-module", CLIHSM.modulePath, "--token-label", token, "--key-label", keyLabel,
                "--pin-file", pinFile ?? self.pinFile,
            ]
        }
    }

    /// Creates a store with the main and login tokens (and a P-256 key when pkcs11-tool exists), the tools
    /// awaited on a thread of their own (never on Swift's cooperative pool). Loads no module in this process.
    static func makeStore() async throws -> Store {
        try await ChildProcess.onThread { () -> Result<Store, any Error> in Result { try makeStoreBlocking() } }.get()
    }

    /// ``makeStore()`` on the calling thread, which it blocks while the tools run.
    static func makeStoreBlocking() throws -> Store {
        let hsm = try SoftHSMStore.makeBlocking(
            prefix: "signerkit-cli-p11", pin: pin, labels: [Label.main, Label.login])
        let wrongPinFile = hsm.directory.appendingPathComponent("wrong.pin").path
        try ToolRun.writePrivate("not-the-pin\n", to: wrongPinFile)
        var hasP256Key = false
        if let tool = executable("pkcs11-tool") {
            try ToolRun.runBlocking(
                tool,
                [
                    "--module", modulePath, "--token-label", Label.main, "--login", "--pin", pin, "--keypairgen",
                    "--key-type", "EC:prime256v1", "--label", p256Label,
                ],
                environment: ["SOFTHSM2_CONF": hsm.configuration])
            hasP256Key = true
        }
        return Store(
            directory: hsm.directory, configuration: hsm.configuration, pinFile: hsm.pinFile,
            wrongPinFile: wrongPinFile, hasP256Key: hasP256Key)
    }

    /// The child process's store, with `SOFTHSM2_CONF` set in the process environment before any
    /// test can load the module (every in-process PKCS#11 test goes through here first). Made once, on a
    /// thread of its own.
    static func inProcessStore() async throws -> Store {
        guard isChild else {
            throw CLIHSMError(description: "the in-process PKCS#11 store is only made in the child test process")
        }
        return try await ChildProcess.onThread { childStore }.get()
    }

    private static let childStore: Result<Store, CLIHSMError> = Result {
        let store = try makeStoreBlocking()
        ChildProcess.setEnvironment("SOFTHSM2_CONF", store.configuration)
        return store
    }.mapError { CLIHSMError(description: "\($0)") }

    /// The first executable called `name` on `PATH` or in /usr/bin.
    static func executable(_ name: String) -> String? { ToolRun.executable(name) }

    /// Runs a tool to completion, awaited on a thread of its own; its stdout, or an error with its stderr.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]) async throws -> String {
        try await ToolRun.run(tool, arguments, environment: environment)
    }
}

/// A set-up failure.
struct CLIHSMError: Error, CustomStringConvertible {
    let description: String
}
