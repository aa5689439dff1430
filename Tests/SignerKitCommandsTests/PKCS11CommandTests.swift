import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The test executable running this code (`…/SignerKitPackageTests.xctest` under `swift test`).
private let testExecutable: String? = {
    guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
        path.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: path)
    else { return nil }
    return path
}()

@Suite(
    "pkcs11: in-process command tests, run in a child test process with its own SoftHSM2 store",
    .enabled(if: CLIHSM.available, "SoftHSM2 is not installed (apt-get install softhsm2 opensc)"),
    .enabled(if: !CLIHSM.isChild, "this is the child process itself"),
    .enabled(if: testExecutable != nil, "the test executable cannot be re-run (not a Linux .xctest executable)"))
struct PKCS11ChildProcessTests {
    @Test("every in-process PKCS#11 test passes in the child")
    func child() async throws {
        let executable = try #require(testExecutable)
        let directory = try TemporaryDirectory()
        let log = try directory.write("child.log", "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--testing-library", "swift-testing", "--filter", "PKCS11InProcessTests"]
        var environment = ProcessInfo.processInfo.environment
        environment[CLIHSM.childMarker] = "1"
        environment.removeValue(forKey: "SOFTHSM2_CONF")
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        try await ChildProcess.run(process)
        // A hung child is killed after 30 s (the tests take a few seconds).
        await waitForExit(process)
        try? handle.close()
        let output = try String(contentsOfFile: log, encoding: .utf8)
        #expect(
            process.terminationReason == .exit && process.terminationStatus == 0,
            "child test process failed:\n\(output.suffix(20_000))")
        // It must really have run the suite (a filter matching nothing also exits 0).
        let ran = output.range(of: #"Test run with [1-9][0-9]* tests? .*passed"#, options: .regularExpression) != nil
        #expect(ran, "the child ran no PKCS#11 tests:\n\(output.suffix(4_000))")
    }
}

/// The PKCS#11 commands against a real SoftHSM2 token, in-process through ``CapturedIO``.
/// Enabled only in the child process started by ``PKCS11ChildProcessTests``, which has the
/// process to itself (see ``CLIHSM``).
@Suite(
    "pkcs11 and PKCS#11 signing (in-process; child process only)",
    .enabled(if: CLIHSM.isChild, "runs in the child test process started by PKCS11ChildProcessTests"))
struct PKCS11InProcessTests {
    let store: CLIHSM.Store

    init() async throws {
        store = try await CLIHSM.inProcessStore()
    }

    /// Runs `signerkit` with the store's environment.
    func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) async -> CommandResult {
        await signerkit(arguments, stdin: stdin, environment: store.environment.merging(environment) { _, new in new })
    }

    /// A key label no other test uses.
    func label(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8))" }

    /// Imports the vector key under a fresh label and returns the label.
    func importVectorKey(_ prefix: String) async throws -> String {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex + "\n")
        let label = label(prefix)
        let result = await run(["pkcs11", "import", "--key-label", label, "--key-file", key] + store.tokenArguments())
        expectSuccess(result, [Actions.address])
        expectNoKeyMaterial(result, key: Actions.keyHex)
        return label
    }

    @Test("import prints the key's address; the same label twice is refused")
    func importKey() async throws {
        let label = try await importVectorKey("import")
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        expectInvalid(
            await run(["pkcs11", "import", "--key-label", label, "--key-file", key] + store.tokenArguments()),
            "a key with label \"\(label)\" already exists")
        expectSuccess(
            await run(["pkcs11", "address", "--key-label", label] + store.tokenArguments()), [Actions.address])
        expectInvalid(
            await run(
                ["pkcs11", "import", "--key-label", self.label("x"), "--key-file", directory.path("none")]
                    + store.tokenArguments()),
            "none: no such file")
        expectInvalid(
            await run(["pkcs11", "import", "--key-label", self.label("x")] + store.tokenArguments()),
            "missing --key-file")
    }

    @Test("keygen, list and address agree")
    func keygenListAddress() async throws {
        let imported = try await importVectorKey("listed")
        let generatedLabel = label("gen")
        let id = "0x" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let generated = await run(
            ["pkcs11", "keygen", "--key-label", generatedLabel, "--key-id", id] + store.tokenArguments())
        #expect(generated.status == 0, "\(generated)")
        let address = try #require(generated.stdoutLines.first)
        #expect(address.hasPrefix("0x") && address.count == 42 && address != Actions.address)

        let listed = await run(["pkcs11", "list"] + store.tokenArguments())
        #expect(listed.status == 0 && listed.stderr.isEmpty, "\(listed)")
        let rows = listed.stdoutLines.map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(rows.allSatisfy { $0.count == 3 }, "\(listed)")
        #expect(rows.contains([generatedLabel, id, address]), "\(listed)")
        #expect(rows.contains { $0[0] == imported && $0[2] == Actions.address && $0[1].hasPrefix("0x") }, "\(listed)")
        // Readers that split on any whitespace see the same three fields (these labels have no spaces).
        #expect(listed.stdoutLines.allSatisfy { $0.split(whereSeparator: \.isWhitespace).count == 3 }, "\(listed)")

        expectSuccess(
            await run(["pkcs11", "address", "--key-label", generatedLabel] + store.tokenArguments()), [address])
        expectSuccess(await run(["pkcs11", "address", "--key-id", id] + store.tokenArguments()), [address])
        expectSuccess(
            await run(["pkcs11", "address", "--key-id", String(id.dropFirst(2))] + store.tokenArguments()), [address])
        expectInvalid(
            await run(["pkcs11", "address", "--key-label", label("absent")] + store.tokenArguments()),
            "no private key with label")
        expectInvalid(
            await run(["pkcs11", "keygen", "--key-label", label("dup"), "--key-id", id] + store.tokenArguments()),
            "a key with id \(id) already exists")
        // The generated key signs, and the signature recovers to its address.
        let signature = await run(
            ["message", "sign", "--text", "generated"] + store.signingArguments(keyLabel: generatedLabel))
        expectSuccess(
            await signerkit([
                "recover", "message", "--text", "generated", "--signature", signature.stdoutLines.first ?? "",
            ]), [address])
    }

    @Test("typed-data sign and message sign with a token key recover to its address")
    func signing() async throws {
        let label = try await importVectorKey("sign")
        let ronin = Fixtures.path("ronin_order.json")
        for _ in 0..<3 {
            let typed = await run(["typed-data", "sign"] + store.signingArguments(keyLabel: label) + [ronin])
            #expect(typed.status == 0 && typed.stderr.isEmpty, "\(typed)")
            expectSuccess(
                await signerkit(["recover", "typed-data", ronin, "--signature", typed.stdoutLines.first ?? ""]),
                [Actions.address])
            let fromStdin = await run(
                ["typed-data", "sign"] + store.signingArguments(keyLabel: label),
                stdin: try Fixtures.text("ronin_order.json"))
            expectSuccess(
                await signerkit(["recover", "typed-data", ronin, "--signature", fromStdin.stdoutLines.first ?? ""]),
                [Actions.address])

            let message = await run(
                ["message", "sign", "--hex", "0xdeadbeef"] + store.signingArguments(keyLabel: label))
            #expect(message.status == 0 && message.stderr.isEmpty, "\(message)")
            expectSuccess(
                await signerkit([
                    "recover", "message", "--hex", "0xdeadbeef", "--signature", message.stdoutLines.first ?? "",
                ]), [Actions.address])
        }
        expectSuccess(await run(["key", "address"] + store.signingArguments(keyLabel: label)), [Actions.address])
    }

    @Test("PIN from SIGNERKIT_PIN and module from SIGNERKIT_PKCS11_MODULE in the command's environment")
    func environmentSources() async throws {
        let label = try await importVectorKey("env")
        let arguments = ["message", "sign", "--text", "env", "--token-label", CLIHSM.Label.main, "--key-label", label]
        let result = await run(arguments, environment: ["SIGNERKIT_PIN": CLIHSM.pin])
        #expect(result.status == 0, "\(result)")
        expectSuccess(
            await signerkit(["recover", "message", "--text", "env", "--signature", result.stdoutLines.first ?? ""]),
            [Actions.address])
        expectInvalid(await run(arguments), "missing --pin-file", "SIGNERKIT_PIN")
        expectSuccess(
            await run(
                ["pkcs11", "address", "--token-label", CLIHSM.Label.main, "--key-label", label],
                environment: ["SIGNERKIT_PIN": CLIHSM.pin]),
            [Actions.address])
    }

    @Test("tx sign with a token key: the raw transaction decodes to the vector's transaction and sender")
    func transaction() async throws {
        let label = try await importVectorKey("tx")
        let vector = try #require(try TransactionVector.all.first { $0.name == "tx-03-legacy" })
        #expect(vector.sender == Actions.address)
        let result = await run(["tx", "sign"] + store.signingArguments(keyLabel: label), stdin: vector.transactionJSON)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let output = try JSONValue(parsing: result.stdout)
        let signed = try SignedTransaction.decode(hex: try #require(output["raw"]?.stringValue))
        let expected = try SignedTransaction.decode(hex: vector.rawTransaction)
        #expect(signed.transaction == expected.transaction)
        #expect(try signed.recoverSender().checksummed == Actions.address)
        #expect(signed.hash.hex == output["hash"]?.stringValue)
    }

    @Test("sign --actions with a token key: the mixed list, both shapes, verified")
    func actions() async throws {
        let label = try await importVectorKey("actions")
        let result = await run(
            ["sign", "--actions", "-"] + store.signingArguments(keyLabel: label),
            stdin: Actions.text(try Actions.mixed()))
        try await verifyMixedResults(result, address: Actions.address)
    }

    @Test("a wrong PIN exits 65 naming CKR_PIN_INCORRECT, with nothing on stdout")
    func wrongPIN() async throws {
        let token = CLIHSM.Label.login
        let wrong = store.wrongPinFile
        let ronin = Fixtures.path("ronin_order.json")
        expectInvalid(
            await run(
                ["typed-data", "sign"] + store.signingArguments(keyLabel: "any", token: token, pinFile: wrong) + [ronin]
            ),
            "CKR_PIN_INCORRECT")
        expectInvalid(
            await run(
                ["message", "sign", "--text", "x"]
                    + store.signingArguments(keyLabel: "any", token: token, pinFile: wrong)),
            "C_Login: CKR_PIN_INCORRECT")
        expectInvalid(
            await run(
                ["sign", "--actions", "-"] + store.signingArguments(keyLabel: "any", token: token, pinFile: wrong),
                stdin: Actions.text([Actions.personalSign(.wire, "0x00")])),
            "CKR_PIN_INCORRECT")
        expectInvalid(await run(["pkcs11", "list"] + store.tokenArguments(token, pinFile: wrong)), "CKR_PIN_INCORRECT")
        expectInvalid(
            await run(
                ["message", "sign", "--text", "x", "--token-label", token, "--key-label", "any"],
                environment: ["SIGNERKIT_PIN": "wrong-pin"]),
            "CKR_PIN_INCORRECT")
    }

    @Test("PIN files lose one trailing newline only; a refused PIN with surrounding whitespace says so")
    func pinWhitespace() async throws {
        let directory = try TemporaryDirectory()
        // The right PIN with CR LF, or without any newline, logs in (on the main token).
        for (name, contents) in [("crlf", CLIHSM.pin + "\r\n"), ("bare", CLIHSM.pin)] {
            let file = try directory.write(name, contents)
            let result = await run(["pkcs11", "list"] + store.tokenArguments(pinFile: file))
            #expect(result.status == 0, "\(name): \(result)")
        }
        // On the login token (never logged in): a space around the PIN is part of it, and the error says so.
        for (name, contents) in [
            ("trailing-space", CLIHSM.pin + " \n"), ("leading-space", " " + CLIHSM.pin),
            ("two-newlines", CLIHSM.pin + "\n\n"),
        ] {
            let file = try directory.write(name, contents)
            expectInvalid(
                await run(["pkcs11", "list"] + store.tokenArguments(CLIHSM.Label.login, pinFile: file)),
                "C_Login: CKR_PIN_INCORRECT", "begins or ends with whitespace", "only one trailing newline is dropped")
        }
        let plain = try directory.write("wrong", "wrong-pin\n")
        let result = await run(["pkcs11", "list"] + store.tokenArguments(CLIHSM.Label.login, pinFile: plain))
        expectInvalid(result, "C_Login: CKR_PIN_INCORRECT")
        #expect(!result.stderr.contains("whitespace"))
        expectInvalid(
            await run(
                ["pkcs11", "list", "--token-label", CLIHSM.Label.login],
                environment: ["SIGNERKIT_PIN": CLIHSM.pin + " "]),
            "CKR_PIN_INCORRECT", "the PIN from $SIGNERKIT_PIN begins or ends with whitespace")
    }

    @Test(
        "a key on another curve is refused: secp256k1 is required",
        .enabled(if: CLIHSM.executable("pkcs11-tool") != nil))
    func otherCurve() async throws {
        #expect(store.hasP256Key)
        let p256 = CLIHSM.p256Label
        expectInvalid(
            await run(["message", "sign", "--text", "x"] + store.signingArguments(keyLabel: p256)),
            "secp256k1 is required")
        expectInvalid(
            await run(
                ["typed-data", "sign"] + store.signingArguments(keyLabel: p256) + [Fixtures.path("ronin_order.json")]),
            "secp256k1 is required")
        expectInvalid(
            await run(["pkcs11", "address", "--key-label", p256] + store.tokenArguments()), "secp256k1 is required")
        let listed = await run(["pkcs11", "list"] + store.tokenArguments())
        #expect(listed.stdoutLines.contains("\(p256)\t-\t-"), "\(listed)")
    }

    @Test("unknown token or key, an unreadable PIN file")
    func lookups() async throws {
        expectInvalid(
            await run(
                ["message", "sign", "--text", "x"] + store.signingArguments(keyLabel: "k", token: "no-such-token")),
            "no initialised PKCS#11 token with label \"no-such-token\"")
        expectInvalid(
            await run(["message", "sign", "--text", "x"] + store.signingArguments(keyLabel: "no-such-key")),
            "no private key with label \"no-such-key\"")
        // On the login token, which this process is never logged in to (a logged-in token reads no PIN).
        expectInvalid(
            await run(
                ["pkcs11", "list"]
                    + store.tokenArguments(
                        CLIHSM.Label.login, pinFile: store.directory.appendingPathComponent("none").path)),
            "none: no such file")
    }
}

/// PKCS#11 argument handling that fails before any module is loaded (safe in the main test process).
@Suite("pkcs11 arguments")
struct PKCS11ArgumentTests {
    static let module = "/nonexistent/libpkcs11-test.so"

    @Test("missing or conflicting flags exit 65 before the module is loaded")
    func flags() async throws {
        let directory = try TemporaryDirectory()
        let pin = try directory.write("pin", "1234")
        let key = try directory.write("key", Actions.keyHex)
        let base = ["--module", Self.module, "--token-label", "t", "--pin-file", pin]
        expectInvalid(await signerkit(["pkcs11", "keygen"] + base), "missing --key-label")
        expectInvalid(await signerkit(["pkcs11", "import", "--key-label", "k"] + base), "missing --key-file")
        expectInvalid(await signerkit(["pkcs11", "address"] + base), "one of --key-label or --key-id is required")
        expectInvalid(
            await signerkit(["pkcs11", "address", "--key-label", "a", "--key-id", "01"] + base),
            "cannot be used together")
        expectInvalid(await signerkit(["pkcs11", "address", "--key-id", "0xzz"] + base), "--key-id: invalid hex")
        expectInvalid(await signerkit(["pkcs11", "address", "--key-id", "0x"] + base), "--key-id: the key id is empty")
        expectInvalid(
            await signerkit(["pkcs11", "list", "--module", Self.module, "--pin-file", pin]), "missing --token-label")
        expectInvalid(
            await signerkit(["pkcs11", "list", "--token-label", "t", "--pin-file", pin]), "missing --module",
            "SIGNERKIT_PKCS11_MODULE")
        expectInvalid(
            await signerkit(["pkcs11", "list", "--module", Self.module, "--token-label", "t"]), "missing --pin-file",
            "SIGNERKIT_PIN")
        expectInvalid(await signerkit(["pkcs11", "list", "--pin", "1234"] + base), "unknown option --pin")

        let signing = ["--pkcs11-module", Self.module, "--token-label", "t", "--pin-file", pin]
        expectInvalid(
            await signerkit(["message", "sign", "--text", "x"] + signing), "one of --key-label or --key-id is required")
        expectInvalid(
            await signerkit(["message", "sign", "--text", "x", "--key-file", key, "--key-label", "k"] + signing),
            "cannot be used together")
        expectInvalid(
            await signerkit([
                "message", "sign", "--text", "x", "--token-label", "t", "--key-label", "k", "--pin-file", pin,
            ]), "missing --pkcs11-module")
    }

    @Test("a module that cannot be loaded is named")
    func badModule() async throws {
        let directory = try TemporaryDirectory()
        let pin = try directory.write("pin", "1234")
        let result = await signerkit([
            "pkcs11", "list", "--module", Self.module, "--token-label", "t", "--pin-file", pin,
        ])
        expectInvalid(result, "cannot load PKCS#11 module \(Self.module)")
        let signing = await signerkit(
            [
                "message", "sign", "--text", "x", "--pkcs11-module", Self.module, "--token-label", "t", "--key-label",
                "k", "--pin-file", pin,
            ])
        expectInvalid(signing, "cannot load PKCS#11 module")
        // A library that is not a PKCS#11 module.
        if let libz = ["/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1"].first(
            where: FileManager.default.fileExists)
        {
            expectInvalid(
                await signerkit(["pkcs11", "list", "--module", libz, "--token-label", "t", "--pin-file", pin]),
                "is not a PKCS#11 module")
        }
    }
}
