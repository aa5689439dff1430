import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
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
        let store = try SoftHSMStore.makeBlocking(prefix: "signerkit-p11", pin: pin, labels: [Label.main, Label.login])
        let added = try store.addTokensBlocking([Label.doomed])
        guard added.count == 1, let doomed = added.first else {
            throw SetupError(text: "expected one new token directory, found \(added)")
        }
        ChildProcess.setEnvironment("SOFTHSM2_CONF", store.configuration)
        ChildProcess.setEnvironment(pinVariable, pin)
        let module = try PKCS11Module.load(path: modulePath)
        return Fixture(
            directory: store.directory, pinFile: URL(fileURLWithPath: store.pinFile), module: module,
            doomedTokenDirectory: store.tokensDirectory.appendingPathComponent(doomed))
    }
}

/// Test digests: keccak256 of a short text.
func digest(_ text: String) -> Digest32 {
    Keccak256.hash(utf8: text)
}

/// The private key of the fixed vector (a well-known test key; never fund it).
let vectorKeyHex = TestKeys.alphaHex

/// Its address.
let vectorAddress = TestKeys.alphaAddress

/// P-256's named-curve OID, DER-encoded.
let p256Parameters: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

/// The suites that use the shared token, one test at a time: key management on a module is
/// serialised (`PKCS11Module.serializingObjectAccess`), and tests running side by side would wait
/// for each other on that lock with Swift's cooperative threads (one per core), holding up every
/// other test in the process meanwhile.
@Suite("PKCS#11 on the shared SoftHSM2 token", .serialized)
enum TokenTests {}
