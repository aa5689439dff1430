import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitCurl
import SignerKitSQLite
import SignerKitTestSupport
import Synchronization
import Testing

/// A `signerkit serve` child process on loopback, stopped with SIGTERM; its stderr goes to a file.
final class ServiceProcess: Sendable {
    let url: URL
    private let process: Mutex<Process?>
    /// The service's stderr (the `listening` line, then one JSON line per request).
    let stderrPath: String

    /// Starts the service with the configuration at `config` and waits for its `listening` line.
    ///
    /// A service with an upstream asks the node for its chain id before it listens; a ready service is seen
    /// within 20 ms. The bound only ends a hang.
    static func start(config: String, environment: [String: String] = [:]) async throws -> ServiceProcess {
        let binary = try #require(Binary.url)
        let stderrPath = config + ".stderr"
        #expect(FileManager.default.createFile(atPath: stderrPath, contents: nil))
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--config", config]
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = FileHandle.nullDevice
        try await ChildProcess.run(process)
        // The listening line, or nil once the child exited.
        // The service starts at the machine's pace; the bound only ends a hang.
        let listening = await RealTime.first(within: .seconds(30)) { () -> URL?? in
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first, line.hasPrefix("listening ") {
                return .some(URL(string: String(line.dropFirst(10))))
            }
            return process.isRunning ? nil : .some(nil)
        }
        if let url = listening ?? nil, process.isRunning {
            return ServiceProcess(url: url, process: process, stderrPath: stderrPath)
        }
        await ChildProcess.onThread { ChildProcess.terminate(process) }
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        throw LocalEVMError(description: "signerkit serve did not start: \(text.prefix(2000))")
    }

    private init(url: URL, process: Process, stderrPath: String) {
        self.url = url
        self.process = Mutex(process)
        self.stderrPath = stderrPath
    }

    /// The structured log lines written so far (after the `listening` line).
    var logLines: [JSONValue] {
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").dropFirst().compactMap { try? JSONValue(parsing: String($0)) }
    }

    /// SIGTERM, then the exit status (`nil` when it did not exit within 15 s: it is then killed), awaited on a
    /// thread of its own: a cooperative thread blocked while services shut down stalls every other test.
    func stop() async -> Int32? {
        guard let process = process.withLock({ $0.take() }) else { return nil }
        return await ChildProcess.onThread { () -> Int32? in
            process.terminate()
            guard ChildProcess.awaitExit(process, within: .seconds(15)) else {
                ChildProcess.terminate(process)
                return nil
            }
            return process.terminationStatus
        }
    }

    /// SIGTERM now, the rest (SIGKILL if need be, the reaping) on a thread of its own: for `defer` and `deinit`.
    func stopInBackground() {
        guard let process = process.withLock({ $0.take() }) else { return }
        ChildProcess.terminateInBackground(process)
    }

    /// Waits up to `limit` for the process to end by itself; its termination (`nil` while it still runs).
    func awaitExit(within limit: Duration) async -> (status: Int32, reason: Process.TerminationReason)? {
        guard let running = process.withLock({ $0 }) else { return nil }
        let exited = await ChildProcess.onThread { ChildProcess.awaitExit(running, within: limit) }
        guard exited else { return nil }
        process.withLock { $0 = nil }
        return (running.terminationStatus, running.terminationReason)
    }

    /// Sends `signal` (e.g. SIGHUP) to the running service.
    func send(signal number: Int32) {
        process.withLock { process in
            if let process, process.isRunning { kill(process.processIdentifier, number) }
        }
    }

    /// Waits up to 30 s (a hang bound) for a log line whose `msg` starts with `prefix`; returns it.
    func awaitLogLine(withMessagePrefix prefix: String, after count: Int = 0) async throws -> JSONValue? {
        await RealTime.first(within: .seconds(30)) {
            logLines.dropFirst(count).first { $0["msg"]?.stringValue?.hasPrefix(prefix) ?? false }
        }
    }

    deinit { stopInBackground() }
}

@Suite(
    "signerkit serve: JSON-RPC signing over HTTP",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct ServeTests {
    static let token = "test-token-8c1f"
    static var tokenHash: String { Hex.encode(SHA256.hash(Array(token.utf8)), prefix: false) }
    let transport = CurlHTTPTransport()

    /// A configuration file with the test key; `extra` members are merged in.
    static func config(_ directory: TemporaryDirectory, _ extra: String = "", clients: String? = nil) throws -> String {
        _ = try directory.write("k.hex", Actions.keyHex + "\n")
        let clientList = clients ?? #"[{"name": "app", "tokenSha256": "\#(tokenHash)"}]"#
        return try directory.write(
            "service.json",
            #"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "clients": \#(clientList), "chainId": "eip155:2021"\#(extra)}"#
        )
    }

    /// The `store` member for a new database on the shared PostgreSQL server (its password in `pg.password`
    /// in `directory`), and the database's name.
    static func postgresStore(_ directory: TemporaryDirectory) async throws -> (member: String, database: String) {
        let server = try await PostgresServer.shared.value
        let database = try await server.createDatabase()
        try directory.write("pg.password", server.password + "\n")
        return (
            #"{"postgres": {"host": "\#(server.host)", "port": \#(server.port), "database": "\#(database)", "user": "\#(server.user)", "passwordFile": "pg.password", "sslMode": "disable"}}"#,
            database
        )
    }

    /// POSTs `body` with `token` (none: no Authorization header).
    func post(_ service: ServiceProcess, _ body: String, token: String? = ServeTests.token) async throws -> HTTPResponse
    {
        var headers = [HTTPHeader("Content-Type", "application/json")]
        if let token { headers.append(HTTPHeader("Authorization", "Bearer \(token)")) }
        let request = HTTPRequest(
            method: "POST", url: service.url, headers: headers, body: Array(body.utf8), timeout: .seconds(30))
        return try await transport.send(request)
    }

    /// One call's answer object.
    func call(_ service: ServiceProcess, _ method: String, _ params: JSONValue = .array([]), id: Int = 1)
        async throws -> JSONValue
    {
        let body = JSONValue.object(
            JSONObject(["jsonrpc": "2.0", "id": .number(String(id)), "method": .string(method), "params": params]))
        let response = try await post(service, body.serialized)
        #expect(response.status == 200, "\(method): HTTP \(response.status)")
        return try JSONValue(parsing: response.body)
    }

    @Test("check-config accepts a good file and names the key path of a bad one (exit 65)")
    func checkConfig() async throws {
        let directory = try TemporaryDirectory()
        let good = try Self.config(directory)
        let ok = try await Binary.run(["serve", "check-config", "--config", good])
        #expect(ok.status == 0 && ok.stdout.hasPrefix("configuration OK"), "\(ok)")
        let cases: [(String, String)] = [
            (#"{"listen": "127.0.0.1:0", "keys": [], "clients": []}"#, "keys: at least one key"),
            (#"{"listen": "localhost:80", "keys": [{"keyFile": "k.hex"}], "clients": []}"#, "listen:"),
            (#"{"listen": "0.0.0.0:8545", "keys": [{"keyFile": "k.hex"}], "clients": []}"#, "loopback only"),
            (
                #"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "clients": [{"name": "a", "tokenSha256": "xyz"}]}"#,
                "clients[0].tokenSha256"
            ),
            (
                #"{"listen": "127.0.0.1:0", "keys": [{"keyfile": "k.hex"}], "clients": [{"name": "a", "tokenSha256": "\#(Self.tokenHash)"}]}"#,
                "keys[0]"
            ),
            (#"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "clientz": []}"#, "clientz: unknown member"),
            (
                #"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "missing.hex"}], "clients": [{"name": "a", "tokenSha256": "\#(Self.tokenHash)"}]}"#,
                "keys[0]"
            ),
            (
                #"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "clients": [{"name": "a", "tokenSha256": "\#(Self.tokenHash)"}], "limits": {"maxConnectionsPerAddress": 0}}"#,
                "limits.maxConnectionsPerAddress"
            ),
            (
                #"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "clients": [{"name": "a", "tokenSha256": "\#(Self.tokenHash)"}], "limits": {"requestReceiveTimeoutMs": 20}}"#,
                "limits.requestReceiveTimeoutMs"
            ),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let path = try directory.write("bad-\(index).json", text)
            let result = try await Binary.run(["serve", "check-config", "--config", path])
            #expect(result.status == 65 && result.stdout.isEmpty, "\(text): \(result)")
            #expect(result.stderr.contains(expected), "\(text): \(result.stderr)")
        }
    }

    @Test("bearer tokens: none or unknown is 401 before any JSON-RPC; healthz needs none")
    func authentication() async throws {
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(config: try Self.config(directory))
        let body = #"{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}"#
        #expect(try await post(service, body, token: nil).status == 401)
        #expect(try await post(service, body, token: "wrong").status == 401)
        #expect(try await post(service, "not json", token: "wrong").status == 401)
        let health = try await transport.send(
            HTTPRequest(method: "GET", url: service.url.appendingPathComponent("healthz"), timeout: .seconds(10)))
        #expect(
            health.status == 200
                && String(decoding: health.body, as: UTF8.self) == #"{"status":"ok","version":"0.1.0"}"#)
        #expect(await service.stop() == 0, "SIGTERM ends the service with status 0")
    }

    @Test("eth_accounts, eth_chainId, personal_sign, eth_signTypedData_v4 and its alias: results recover to the key")
    func signing() async throws {
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(config: try Self.config(directory))
        #expect(try await call(service, "eth_accounts")["result"] == .array([.string(Actions.address)]))
        #expect(try await call(service, "eth_chainId")["result"] == .string("0x7e5"))

        let message = try #require(
            try await call(service, "personal_sign", .array(["0x68656c6c6f", .string(Actions.address)]))["result"]?
                .stringValue)
        expectSuccess(
            await signerkit(["recover", "message", "--hex", "0x68656c6c6f", "--signature", message]), [Actions.address])

        let order = try String(contentsOfFile: Fixtures.path("ronin_order.json"), encoding: .utf8)
        for method in ["eth_signTypedData_v4", "eth_signTypedData"] {
            let answer = try await call(service, method, .array([.string(Actions.address), .string(order)]))
            let signature = try #require(answer["result"]?.stringValue, "\(answer.serialized)")
            expectSuccess(
                await signerkit(["recover", "typed-data", Fixtures.path("ronin_order.json"), "--signature", signature]),
                [Actions.address])
        }
        #expect(await service.stop() == 0)
    }

    @Test("batches answer in order; errors carry stable codes; notifications get no answer")
    func batchesAndErrors() async throws {
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(config: try Self.config(directory))
        let batch = """
            [{"jsonrpc":"2.0","id":"a","method":"eth_chainId"},
             {"jsonrpc":"2.0","id":2,"method":"personal_sign","params":["0x01"]},
             {"jsonrpc":"2.0","method":"eth_accounts"},
             {"jsonrpc":"2.0","id":4,"method":"eth_sign","params":["\(Actions.address)","0x01"]},
             {"jsonrpc":"2.0","id":5,"method":"no_such_method"},
             {"jsonrpc":"1.0","id":6,"method":"eth_accounts"},
             {"jsonrpc":"2.0","id":7,"method":"eth_blockNumber"},
             {"jsonrpc":"2.0","id":8,"method":"personal_sign","params":["0x01","0x0000000000000000000000000000000000000001"]}]
            """
        let response = try await post(service, batch)
        let answers = try #require(try JSONValue(parsing: response.body).arrayValue)
        #expect(
            answers.map { $0["id"] } == [
                .string("a"), .number("2"), .number("4"), .number("5"), .number("6"), .number("7"), .number("8"),
            ])
        #expect(answers[0]["result"] == .string("0x7e5"))
        #expect(answers[1]["error"]?["code"] == .number("-32602"), "\(answers[1].serialized)")
        #expect(answers[2]["error"]?["code"] == .number("-32601"), "eth_sign is off by default")
        #expect(answers[3]["error"]?["code"] == .number("-32601"))
        #expect(answers[4]["error"]?["code"] == .number("-32600"))
        #expect(answers[5]["error"]?["code"] == .number("-32601"), "no upstream to pass eth_blockNumber to")
        #expect(answers[6]["error"]?["code"] == .number("-32001"), "\(answers[6].serialized)")
        let notification = try await post(service, #"{"jsonrpc":"2.0","method":"eth_accounts"}"#)
        #expect(notification.status == 204 && notification.body.isEmpty)
        let garbage = try await post(service, "{not json")
        #expect(try JSONValue(parsing: garbage.body)["error"]?["code"] == .number("-32700"))
        #expect(await service.stop() == 0)
    }

    @Test("signerkit_signActions: wallet RPC actions in both shapes, results in order; signerkit_preview")
    func signActions() async throws {
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(config: try Self.config(directory))
        let actions = try JSONValue(
            parsing: Actions.text([
                try Actions.typedData(.sdk), Actions.personalSign(.wire, "0x68656c6c6f"),
            ]))
        let answer = try await call(service, "signerkit_signActions", .array([actions]))
        let results = (answer["result"]?.arrayValue ?? []).compactMap(\.stringValue)
        try #require(results.count == 2, "\(answer.serialized)")
        expectSuccess(
            await signerkit(["recover", "typed-data", Fixtures.path("ronin_order.json"), "--signature", results[0]]),
            [Actions.address])
        expectSuccess(
            await signerkit(["recover", "message", "--hex", "0x68656c6c6f", "--signature", results[1]]),
            [Actions.address])
        let previews = try await call(service, "signerkit_preview", .object(JSONObject(["actions": actions])))
        #expect(previews["result"]?.arrayValue?.count == 2, "\(previews.serialized)")
        // One bad action: nothing is signed, the error names it.
        let bad = try JSONValue(
            parsing: Actions.text([
                Actions.personalSign(.wire, "0x01"), Actions.action(.sdk, method: "eth_mystery", params: .array([])),
            ]))
        let refused = try await call(service, "signerkit_signActions", .array([bad]))
        #expect(refused["result"] == nil)
        #expect(refused["error"]?["message"]?.stringValue?.contains("action[1]") == true, "\(refused.serialized)")
        #expect(await service.stop() == 0)
    }

    @Test("per-client accounts and methods; eth_sign when enabled")
    func clientRules() async throws {
        let directory = try TemporaryDirectory()
        let other = "0x0000000000000000000000000000000000000001"
        let clients = """
            [{"name": "app", "tokenSha256": "\(Self.tokenHash)", "methods": ["eth_accounts", "personal_sign", "eth_sign"]},
             {"name": "narrow", "tokenSha256": "\(Hex.encode(SHA256.hash(Array("narrow".utf8)), prefix: false))",
              "accounts": ["\(other)"]}]
            """
        let service = try await ServiceProcess.start(
            config: try Self.config(directory, #", "enableEthSign": true"#, clients: clients))
        let typed = try await call(service, "eth_signTypedData_v4", .array([.string(Actions.address), "{}"]))
        #expect(typed["error"]?["code"] == .number("-32001"), "\(typed.serialized)")
        let ethSign = try await call(service, "eth_sign", .array([.string(Actions.address), "0x68656c6c6f"]))
        let signature = try #require(ethSign["result"]?.stringValue, "\(ethSign.serialized)")
        expectSuccess(
            await signerkit(["recover", "message", "--hex", "0x68656c6c6f", "--signature", signature]),
            [Actions.address])
        let narrow = try await post(
            service, #"{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x01","\#(Actions.address)"]}"#,
            token: "narrow")
        #expect(try JSONValue(parsing: narrow.body)["error"]?["code"] == .number("-32001"))
        let accounts = try await post(service, #"{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}"#, token: "narrow")
        #expect(try JSONValue(parsing: accounts.body)["result"] == .array([]))
        #expect(await service.stop() == 0)
    }

    @Test("eth_sendTransaction is filled and broadcast through the upstream node; other calls are passed to it")
    func upstream() async throws {
        let node = try await LocalEVM.start(fund: [try Address(Actions.address)], chainId: 2021)
        defer { node.stop() }
        let directory = try TemporaryDirectory()
        let config = try Self.config(directory, #", "upstream": {"eip155:2021": "\#(node.url.absoluteString)"}"#)
        let service = try await ServiceProcess.start(config: config)
        let recipient = "0x2d5fd9e4a3a225a78329a64d022581275b4ca416"
        let tx = JSONValue.object(
            JSONObject(["from": .string(Actions.address), "to": .string(recipient), "value": "0x2386f26fc10000"]))
        let sent = try await call(service, "eth_sendTransaction", .array([tx]))
        let hash = try #require(sent["result"]?.stringValue, "\(sent.serialized)")
        let receipt = try await node.call("eth_getTransactionReceipt", [.string(hash)])
        #expect(receipt["status"]?.stringValue == "0x1", "\(receipt.serialized)")
        // Journalled (in journal.sqlite beside the configuration) before it was broadcast.
        let journal = try SQLiteTransactionJournal(path: directory.path("journal.sqlite"))
        #expect(
            try await journal.highestNonce(chain: ChainID(eip155: 2021), account: try Address(Actions.address)) == 0)
        let balance = try await call(service, "eth_getBalance", .array([.string(recipient), "latest"]))
        #expect(balance["result"] == .string("0x2386f26fc10000"), "\(balance.serialized)")
        let wrong = try await call(service, "eth_getBalance", .array(["not an address", "latest"]))
        #expect(wrong["error"] != nil, "the node's own error is passed through")
        #expect(await service.stop() == 0)
    }

    @Test("audit log: one JSON line per call, synced before the answer, result hashes only; metrics and request logs")
    func auditAndMetrics() async throws {
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(
            config: try Self.config(directory, #", "auditLog": "audit.jsonl""#))
        let signed = try await call(service, "personal_sign", .array(["0x68656c6c6f", .string(Actions.address)]))
        let signature = try #require(signed["result"])
        _ = try await post(
            service,
            #"[{"jsonrpc":"2.0","id":1,"method":"eth_accounts"},{"jsonrpc":"2.0","id":2,"method":"personal_sign","params":[]}]"#
        )
        #expect(try await post(service, "{}", token: "wrong").status == 401)

        // The answers were sent, so their lines are on disk already.
        let text = try String(contentsOfFile: directory.path("audit.jsonl"), encoding: .utf8)
        let lines = try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        try #require(lines.count == 3, "\(text)")
        #expect(lines[0]["method"] == "personal_sign" && lines[0]["outcome"] == "ok" && lines[0]["client"] == "app")
        #expect(lines[0]["accounts"] == .array([.string(Actions.address)]))
        #expect(lines[0]["chains"] == .array(["eip155:2021"]))
        #expect(lines[0]["resultHash"]?.stringValue == Keccak256.hash(Array(signature.serialized.utf8)).hex)
        #expect(lines[1]["requestId"] == lines[2]["requestId"] && lines[1]["requestId"] != lines[0]["requestId"])
        #expect(lines[2]["outcome"] == "error" && lines[2]["code"] == .number("-32602"))
        #expect(!text.contains(String(Actions.keyHex.dropFirst(2))), "no key in the audit log")
        #expect(!text.contains(Self.token) && !text.contains(signature.stringValue ?? "-"), "no token, no result")
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path("audit.jsonl"))[.posixPermissions]
        #expect((mode as? Int) == 0o600)

        let metrics = try await transport.send(
            HTTPRequest(method: "GET", url: service.url.appendingPathComponent("metrics"), timeout: .seconds(10)))
        let exposition = String(decoding: metrics.body, as: UTF8.self)
        #expect(
            exposition.contains(#"signerkit_requests_total{method="personal_sign",outcome="ok"} 1"#), "\(exposition)")
        #expect(exposition.contains(#"signerkit_requests_total{method="personal_sign",outcome="error_32602"} 1"#))
        #expect(exposition.contains(#"signerkit_request_duration_seconds_count{method="personal_sign"} 2"#))
        #expect(exposition.contains("signerkit_signatures_total{backend=\"PrehashBackend(CLIKeySigner)\"} 1"))
        #expect(exposition.contains("signerkit_unauthorized_total 1"))

        let logs = service.logLines
        #expect(logs.count == 3, "one line per request: \(logs.map(\.serialized))")
        #expect(logs.map { $0["status"] } == [.number("200"), .number("200"), .number("401")])
        #expect(logs.last?["client"] == .null)
        #expect(await service.stop() == 0)
    }
}
