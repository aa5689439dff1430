import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Testing
import WalletConnectPay
import WalletConnectPayTesting

@testable import SignerKitCommands

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The CLI hostile-input corpus: keys pasted into value flags, megabyte values, modes and
/// symlinks of secret files, trailing newlines, `--api-key`, hostile keystore KDF parameters.
/// FIFOs, invalid UTF-8 and core dumps need a real process: see ``HostileProcessTests``.
@Suite("hostile input: keys in value flags, megabyte values, secret files, KDF bounds")
struct HostileInputTests {
    @Test(
        "payment ids that would change the API path (.., encoded dots, ?, #) exit 65 before any request",
        arguments: ["..", ".", "%2e%2E", "pay_x?y", "pay_x#y", "https://pay.walletconnect.com/?pid=.."])
    func hostilePaymentIds(_ id: String) async throws {
        let api = try await FaultServer.start()
        defer { api.stop() }
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let result = await signerkit(["pay", id, "--key-file", key, "--api-url", api.url.absoluteString])
        expectInvalid(result, "payment id")
        #expect(try await api.requests().isEmpty, "nothing may reach the API")
    }

    /// The key every probe pastes (the Actions fixture key, whose address is known).
    static let key = keyDigits(Actions.keyHex)

    /// How a key may be pasted into a value.
    static let pastedForms: [String] = [
        key, "0x" + key, "0X" + key.uppercased(), "eip155:8453:0x" + key, "https://pay.walletconnect.com/?pid=0x" + key,
        "wc:" + key + "@2?pay=pay_1", "x0x" + key + "y", "0x00" + key + "ff", "http://127.0.0.1:1/cb/" + key,
    ]

    /// Every command line with a value slot `$` the probes fill, e.g. `--to $`. URLs that would be
    /// contacted point at `apiURL` (a local service), so no probe leaves the machine.
    static func probes(directory: TemporaryDirectory, keyFile: String, apiURL: String) throws -> [[String]] {
        let address = "0x0000000000000000000000000000000000000001"
        let wp = ["--client-id", "c", "--redirect", "http://127.0.0.1:1/cb"]
        let pay = ["https://pay.walletconnect.com/?pid=pay_1", "--key-file", keyFile, "--api-url", apiURL]
        return [
            ["waypoint", "url", "send"] + wp + ["--to", "$", "--value", "1"],
            ["waypoint", "url", "send"] + wp + ["--to", address, "--value", "$"],
            ["waypoint", "url", "call"] + wp + ["--to", address, "--data", "$"],
            ["waypoint", "url", "sign-message"] + wp + ["--message", "hi", "--expect-address", "$"],
            ["waypoint", "url", "sign-message", "--client-id", "c", "--message", "hi", "--redirect", "$"],
            ["waypoint", "url", "authorize"] + wp + ["--origin", "$"],
            ["waypoint", "url", "authorize"] + wp + ["--chain-id", "$"],
            ["waypoint", "url", "$"] + wp,
            ["waypoint", "parse", "$"],
            ["waypoint", "parse", "http://127.0.0.1/cb?state=s&method=$&type=success&data=0x"],
            ["waypoint", "deliver", "$", "--socket", directory.path("no-socket")],
            ["waypoint", "simulate-wallet", "--key-file", keyFile, "--reported-address", "$"],
            ["waypoint", "simulate-wallet", "--key-file", keyFile, "--port", "$"],
            ["waypoint", "simulate-wallet", "--key-file", keyFile, "--auto", "$"],
            ["pay", "$", "--key-file", keyFile, "--api-url", apiURL],
            pay + ["--account", "$"],
            pay + ["--rpc-url", "\(apiURL)/$"],
            pay + ["--max-poll-ms", "$"],
            pay + ["--collect-data", "$"],
            ["pay", "https://pay.walletconnect.com/?pid=pay_1", "--key-file", keyFile, "--api-url", "\(apiURL)/$"],
            ["sign", "--actions", "$", "--key-file", keyFile],
            ["sign", "--actions", "-", "--key-file", keyFile, "--rpc-url", "\(apiURL)/$"],
            ["message", "sign", "--text", "hi", "--key-file", "$"],
            ["message", "hash", "--hex", "$"],
            ["recover", "message", "--text", "hi", "--signature", "$"],
            ["pkcs11", "list", "--module", "$", "--token-label", "t", "--pin-file", keyFile],
            [
                "pkcs11", "address", "--module", "/nonexistent.so", "--token-label", "t", "--key-id", "$", "--pin-file",
                keyFile,
            ],
            ["keystore", "new", "--out", directory.path("ks"), "--kdf", "$", "--password-file", keyFile],
            ["keystore", "address", "$"],
            ["typed-data", "hash", "$"],
            ["$"],
            ["message", "$"],
            ["message", "sign", "--text", "hi", "--key-file", keyFile, "--$"],
        ]
    }

    @Test("a key pasted into any value is never echoed on stderr")
    func keysInValueFlags() async throws {
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("key", Actions.keyHex + "\n")
        // A local Pay service that knows no payment: every Pay request is answered at once (404).
        let service = try LocalPayService(configuration: .init(autoCreatePayments: false))
        defer { service.stop() }
        let apiURL = service.baseURL.absoluteString
        var probed = 0
        for probe in try Self.probes(directory: directory, keyFile: keyFile, apiURL: apiURL) {
            for form in Self.pastedForms {
                let arguments = probe.map { $0.replacingOccurrences(of: "$", with: form) }
                let result = await signerkit(arguments, stdin: "[]")
                probed += 1
                let stderr = result.stderr.lowercased()
                #expect(!stderr.contains(String(Self.key.prefix(16))), "key echoed: \(arguments)\n\(result)")
                #expect(result.stderr.utf8.count < 2_000, "\(arguments)")
            }
        }
        #expect(probed >= 30 * Self.pastedForms.count)
    }

    @Test("a megabyte value is quoted abbreviated: the error stays short")
    func megabyteValues() async throws {
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("key", Actions.keyHex + "\n")
        let service = try LocalPayService(configuration: .init(autoCreatePayments: false))
        defer { service.stop() }
        let apiURL = service.baseURL.absoluteString
        let huge = String(repeating: "m", count: 1_000_000)
        for probe in try Self.probes(directory: directory, keyFile: keyFile, apiURL: apiURL) {
            // A megabyte payment id takes the Pay client tens of seconds (superlinear, outside the
            // CLI); a tenth of it shows the same short error.
            let value = probe.starts(with: ["pay", "$"]) ? String(huge.prefix(100_000)) : huge
            let arguments = probe.map { $0.replacingOccurrences(of: "$", with: value) }
            let result = await signerkit(arguments, stdin: "[]")
            #expect(result.stderr.utf8.count < 2_000, "\(probe): \(result.stderr.utf8.count) bytes of stderr")
        }
        // Megabyte fields inside a document: the method name, the chain id, a typed-data type.
        let method = try directory.write(
            "method.json", "[{\"walletRpc\":{\"chainId\":\"eip155:1\",\"method\":\"\(huge)\",\"params\":\"[]\"}}]")
        let chain = try directory.write(
            "chain.json",
            "[{\"walletRpc\":{\"chainId\":\"eip155:\(huge)\",\"method\":\"personal_sign\",\"params\":\"[]\"}}]")
        let keyInMethod = try directory.write(
            "keyed.json",
            "[{\"walletRpc\":{\"chainId\":\"eip155:1\",\"method\":\"\(String(repeating: "m", count: 70))\(Self.key)\",\"params\":\"[]\"}}]"
        )
        for file in [method, chain, keyInMethod] {
            let result = await signerkit(["sign", "--actions", file, "--key-file", keyFile])
            expectInvalid(result, "action[0]")
            #expect(result.stderr.utf8.count < 600, "\(result.stderr.utf8.count) bytes")
            #expect(!result.stderr.lowercased().contains(String(Self.key.prefix(16))))
        }
    }

    @Test("key, password, PIN and API-key files: mode, symlink and directory checks; --allow-insecure-permissions")
    func secretFileModes() async throws {
        let directory = try TemporaryDirectory()
        let signing = ["message", "sign", "--text", "hi"]
        let good = try directory.write("key", Actions.keyHex + "\n")
        let reference = await signerkit(signing + ["--key-file", good])
        #expect(reference.status == 0 && reference.stdoutLines.count == 1, "\(reference)")
        let signature = reference.stdoutLines
        for mode in [0o644, 0o640, 0o604, 0o660, 0o602, 0o610] {
            let file = try directory.write("key-\(mode)", Actions.keyHex + "\n", mode: mode)
            let shown = "0" + String(mode, radix: 8)
            expectInvalid(
                await signerkit(signing + ["--key-file", file]), "\(file): mode \(shown)", "chmod 600",
                "--allow-insecure-permissions")
            expectSuccess(
                await signerkit(signing + ["--key-file", file, "--allow-insecure-permissions"]), signature)
        }
        // 0400 is fine.
        let readOnly = try directory.write("key-0400", Actions.keyHex, mode: 0o400)
        expectSuccess(await signerkit(signing + ["--key-file", readOnly]), signature)
        // A symlink to a good file is refused unless waived.
        let link = directory.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: good)
        expectInvalid(await signerkit(signing + ["--key-file", link]), "\(link): is a symbolic link")
        expectSuccess(
            await signerkit(signing + ["--key-file", link, "--allow-insecure-permissions"]), signature)
        // A directory, /dev/null: not regular files, even when waived.
        for path in [directory.url.path, "/dev/null"] {
            expectInvalid(
                await signerkit(signing + ["--key-file", path, "--allow-insecure-permissions"]), "not a regular file")
        }

        // Password files (keystore), PIN files (before any module is loaded) and API-key files.
        let open = try directory.write("open", "secret\n", mode: 0o644)
        expectInvalid(
            await signerkit(["keystore", "new", "--out", directory.path("k1"), "--password-file", open, "--kdf-light"]),
            "\(open): mode 0644")
        expectInvalid(
            await signerkit(["pkcs11", "list", "--module", "/nonexistent.so", "--token-label", "t", "--pin-file", open]
            ),
            "\(open): mode 0644")
        let refusing = try RefusingPort()
        let pay = [
            "pay", "https://pay.walletconnect.com/?pid=pay_1", "--key-file", good, "--api-url",
            "http://127.0.0.1:\(refusing.port)",
        ]
        expectInvalid(await signerkit(pay + ["--api-key-file", open]), "\(open): mode 0644")
        expectInvalid(await signerkit(pay + ["--api-key-file", link]), "is a symbolic link")
    }

    @Test("--api-key on the command line is refused, pointing at --api-key-file and SIGNERKIT_PAY_API_KEY")
    func apiKeyFlagIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let result = await signerkit([
            "pay", "https://pay.walletconnect.com/?pid=pay_1", "--key-file", key, "--api-key", "secret-api-key-123",
        ])
        expectInvalid(result, "--api-key is no longer accepted", "--api-key-file", "SIGNERKIT_PAY_API_KEY")
        #expect(!result.stderr.contains("secret-api-key-123"))
        let empty = try directory.write("empty", "\n")
        expectInvalid(
            await signerkit(["pay", "pay_1", "--key-file", key, "--api-key-file", empty]), "the API key is empty")
        let spaced = try directory.write("spaced", "a b\n")
        expectInvalid(
            await signerkit(["pay", "pay_1", "--key-file", key, "--api-key-file", spaced]), "printable ASCII")
    }

    @Test("password files lose exactly one trailing newline (LF or CR LF), nothing else")
    func passwordNewlines() async throws {
        let directory = try TemporaryDirectory()
        let plain = try directory.write("plain", "pw")
        let keystore = directory.path("ks.json")
        expectSuccess(
            await signerkit([
                "keystore", "new", "--out", keystore, "--password-file", plain, "--kdf-light", "--key-file",
                try directory.write("key", Actions.keyHex),
            ]), [Actions.address])
        // The address field is dropped, so `keystore address` must decrypt.
        var document = try JSONValue(parsing: String(contentsOfFile: keystore, encoding: .utf8))
        document = document.removingKey("address")
        let anonymous = try directory.write("anonymous.json", document.serialized)
        for (name, contents, accepted) in [
            ("lf", "pw\n", true), ("crlf", "pw\r\n", true), ("two-lf", "pw\n\n", false), ("space", "pw \n", false),
            ("leading", " pw", false), ("cr", "pw\r", false), ("tab", "pw\t\n", false),
        ] {
            let file = try directory.write(name, contents)
            let result = await signerkit(["keystore", "address", anonymous, "--password-file", file])
            if accepted {
                expectSuccess(result, [Actions.address])
            } else {
                expectInvalid(result, "wrong password")
            }
        }
    }

    @Test("hostile keystore KDF parameters exit 65 naming the parameter, at once")
    func kdfBounds() async throws {
        let directory = try TemporaryDirectory()
        let password = try directory.write("password", "pw\n")
        let keystore = directory.path("ks.json")
        expectSuccess(
            await signerkit([
                "keystore", "new", "--out", keystore, "--password-file", password, "--kdf", "pbkdf2", "--kdf-light",
                "--key-file", try directory.write("key", Actions.keyHex),
            ]), [Actions.address])
        let pbkdf2 = try JSONValue(parsing: String(contentsOfFile: keystore, encoding: .utf8)).removingKey("address")
        let scryptPath = directory.path("scrypt.json")
        expectSuccess(
            await signerkit([
                "keystore", "new", "--out", scryptPath, "--password-file", password, "--kdf-light", "--key-file",
                try directory.write("key2", Actions.keyHex),
            ]), [Actions.address])
        let scrypt = try JSONValue(parsing: String(contentsOfFile: scryptPath, encoding: .utf8)).removingKey("address")
        let cases: [(JSONValue, String, String)] = [
            (pbkdf2.setting("crypto.kdfparams.c", to: .number("4294967295")), "crypto.kdfparams.c", "10000000"),
            (pbkdf2.setting("crypto.kdfparams.c", to: .number("10000001")), "crypto.kdfparams.c", "10000000"),
            (scrypt.setting("crypto.kdfparams.p", to: .number("1048576")), "crypto.kdfparams.n", "2^32"),
        ]
        // Refused before any derivation: 2^32 − 1 iterations or p = 2^20 would not end (the test would hang, not
        // pass), and a derivation that ended would decrypt (the password is right), not refuse.
        for (index, (document, field, limit)) in cases.enumerated() {
            let file = try directory.write("hostile-\(index).json", document.serialized)
            expectInvalid(
                await signerkit(["keystore", "address", file, "--password-file", password]), field,
                "too much key-derivation work", limit)
            expectInvalid(
                await signerkit(["message", "sign", "--text", "x", "--keystore", file, "--password-file", password]),
                field)
        }
    }

    /// `setpriv`, when this process may use it to start a child as another user (root only).
    static let setpriv: String? = getuid() == 0 ? CLIHSM.executable("setpriv") : nil

    /// The owner of `/proc/PID/status`: the process's user while it is dumpable, root once it set
    /// `PR_SET_DUMPABLE` 0 (proc(5)). Observable from outside only for a process of another user.
    static func statusOwner(_ pid: Int32) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: "/proc/\(pid)/status")
        return try #require((attributes[.ownerAccountID] as? NSNumber)?.intValue)
    }

    @Test(
        "a running signerkit holding a key is not dumpable (PR_SET_DUMPABLE 0), while an ordinary process is",
        .enabled(if: setpriv != nil, "needs root and setpriv to run the child as another user"))
    func notDumpableInALiveProcess() async throws {
        let url = try #require(Binary.url)
        let setpriv = try #require(Self.setpriv)
        let nobody: UInt32 = 65_534
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.url.path, 0o755) == 0)
        let key = try directory.write("key", Actions.keyHex)
        #expect(chown(key, nobody, nobody) == 0)
        let asNobody = [setpriv, "--reuid", "\(nobody)", "--regid", "\(nobody)", "--clear-groups"]
        func start(_ arguments: [String], stdout: String) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: asNobody[0])
            process.arguments = Array(asNobody.dropFirst()) + arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout))
            process.standardError = FileHandle.nullDevice
            try ChildProcess.runBlocking(process)
            return process
        }
        // Control: an ordinary process of that user is dumpable, so its status file is its own (a child process
        // is the subject; it sleeps until killed below, no test waits for it).
        let control = try start(["/bin/sleep", "300"], stdout: try directory.write("control.out", ""))
        defer { kill(control.processIdentifier, SIGKILL) }
        let outPath = try directory.write("stdout", "")
        let signer = try start(
            [url.path, "waypoint", "simulate-wallet", "--key-file", key, "--exit-after", "300"], stdout: outPath)
        defer { kill(signer.processIdentifier, SIGKILL) }
        // The child starts at the machine's pace; the bound only ends a hang (the control outlives it).
        _ = await RealTime.poll(within: .seconds(30)) {
            ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "").contains("listening")
        }
        try #require(signer.isRunning && control.isRunning, "a child exited early")
        #expect(try Self.statusOwner(control.processIdentifier) == Int(nobody))
        #expect(try Self.statusOwner(signer.processIdentifier) == 0)
        kill(signer.processIdentifier, SIGKILL)
        kill(control.processIdentifier, SIGKILL)
        await waitForExit(signer, killAfter: .seconds(5))
        await waitForExit(control, killAfter: .seconds(5))
    }
}

extension JSONValue {
    /// A copy with the member at the dotted `path` replaced.
    fileprivate func setting(_ path: String, to value: JSONValue?) -> JSONValue {
        let keys = path.split(separator: ".").map(String.init)
        return setting(keys[...], to: value)
    }

    /// A copy without the top-level member `key`.
    fileprivate func removingKey(_ key: String) -> JSONValue { setting(key, to: nil) }

    private func setting(_ path: ArraySlice<String>, to value: JSONValue?) -> JSONValue {
        guard let key = path.first, case .object(var object) = self else { return self }
        object[key] =
            path.count == 1 ? value : (object[key] ?? .object(JSONObject())).setting(path.dropFirst(), to: value)
        return .object(object)
    }
}

/// FIFOs, invalid UTF-8 and core dumps: the real `signerkit` binary in child processes.
@Suite(
    "hostile input in real processes: FIFOs never block, invalid UTF-8, core dumps off",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct HostileProcessTests {
    /// Runs the binary with a kill deadline (a process killed there shows no exit status: -1).
    static func run(_ arguments: [String], shell: Bool = false, killAfter: Duration = .seconds(30)) async throws
        -> CommandResult
    {
        let url = shell ? URL(fileURLWithPath: "/bin/sh") : try #require(Binary.url)
        let directory = try TemporaryDirectory()
        let outPath = try directory.write("stdout", "")
        let errPath = try directory.write("stderr", "")
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try await ChildProcess.run(process)
        await waitForExit(process, killAfter: killAfter)
        return CommandResult(
            status: process.terminationReason == .exit ? process.terminationStatus : -1,
            stdout: try String(contentsOfFile: outPath, encoding: .utf8),
            stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }

    @Test("a FIFO as key, password, PIN or API-key file is refused at once (nobody ever writes to it)")
    func fifosNeverBlock() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let key = try directory.write("key", Actions.keyHex)
        let commands: [[String]] = [
            ["message", "sign", "--text", "x", "--key-file", fifo],
            ["message", "sign", "--text", "x", "--key-file", fifo, "--allow-insecure-permissions"],
            ["keystore", "new", "--out", directory.path("ks"), "--password-file", fifo, "--kdf-light"],
            ["pkcs11", "list", "--module", "/nonexistent.so", "--token-label", "t", "--pin-file", fifo],
            ["pay", "pay_1", "--key-file", key, "--api-key-file", fifo],
        ]
        for arguments in commands {
            // A process blocked on the FIFO would be killed at the limit, and show no exit status (-1, not 65).
            let result = try await Self.run(arguments)
            expectInvalid(result, "\(fifo): is a FIFO, not a regular file")
        }
    }

    @Test("--text that is not valid UTF-8 exits 65 (it used to sign U+FFFD)")
    func invalidUTF8() async throws {
        let url = try #require(Binary.url)
        for (script, fragment) in [
            (#"exec "$0" message hash --text "$(printf 'a\377b')""#, "--text: not valid UTF-8"),
            (#"exec "$0" message hash "--text=$(printf '\303')""#, "--text: not valid UTF-8"),
            (#"exec "$0" typed-data hash "$(printf '\377')""#, "argument 3: not valid UTF-8"),
        ] {
            let result = try await Self.run(["-c", script, url.path], shell: true)
            expectInvalid(result, fragment)
        }
        let valid = try await Self.run(["message", "hash", "--text", "é"])
        #expect(valid.status == 0, "\(valid)")
    }

    @Test("a running signerkit that holds a key has RLIMIT_CORE 0 even when started with unlimited core dumps")
    func coreDumpLimitInALiveProcess() async throws {
        let url = try #require(Binary.url)
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let outPath = try directory.write("stdout", "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The shell raises the limit, then becomes signerkit (exec keeps the pid and the limit).
        process.arguments = [
            "-c", #"ulimit -c unlimited && exec "$0" waypoint simulate-wallet --key-file "$1" --exit-after 60"#,
            url.path, key,
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let errPath = try directory.write("stderr", "")
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try await ChildProcess.run(process)
        defer { kill(process.processIdentifier, SIGKILL) }
        // The child starts at the machine's pace; the bound only ends a hang (the control outlives it).
        _ = await RealTime.poll(within: .seconds(30)) {
            ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "").contains("listening")
        }
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        try #require(output.contains("listening") && process.isRunning, "stdout: \(output)\nstderr: \(errors)")
        let limits = try String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        // "Max core file size  0  0  bytes": soft and hard limit 0.
        #expect(fields.count >= 6 && fields[4] == "0" && fields[5] == "0", "\(line)")
        await waitForExit(process, killAfter: .milliseconds(1))
    }
}
