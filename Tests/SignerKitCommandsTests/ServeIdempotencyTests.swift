import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitCurl
import SignerKitTestSupport
import Testing

/// `Idempotency-Key` and `signerkit_signActions` keys against real service processes: answers kept in the
/// SQLite store across a restart, and two instances sharing one PostgreSQL database sending transactions to
/// the local EVM with retries that never sign a second transaction.
@Suite(
    "signerkit serve: idempotency keys, SQLite and PostgreSQL stores",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct ServeIdempotencyTests {
    static let otherToken = "second-token-61d0"
    let transport = CurlHTTPTransport()

    /// Both clients: `app` (``ServeTests/token``) and `ops`.
    static var clients: String {
        let other = Hex.encode(SHA256.hash(Array(otherToken.utf8)), prefix: false)
        return
            #"[{"name": "app", "tokenSha256": "\#(ServeTests.tokenHash)"}, {"name": "ops", "tokenSha256": "\#(other)"}]"#
    }

    /// POSTs `body` with `key` as its `Idempotency-Key` (and any `extra` headers).
    func post(
        _ service: ServiceProcess, _ body: String, key: String?, token: String = ServeTests.token,
        extra: [HTTPHeader] = []
    ) async throws -> HTTPResponse {
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Authorization", "Bearer \(token)")]
        if let key { headers.append(HTTPHeader("Idempotency-Key", key)) }
        let request = HTTPRequest(
            method: "POST", url: service.url, headers: headers + extra, body: Array(body.utf8), timeout: .seconds(30))
        return try await transport.send(request)
    }

    static func personalSign(_ hex: String) -> String {
        #"{"jsonrpc":"2.0","id":7,"method":"personal_sign","params":["\#(hex)","\#(Actions.address)"]}"#
    }

    @Test("check-config names the store member at fault; the PostgreSQL password is read from its file only")
    func storeConfiguration() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("pg.password", "secret-pw-6d2e\n")
        func postgres(_ members: String) -> String {
            #", "store": {"postgres": {"database": "d", "user": "u", "passwordFile": "pg.password", \#(members)}}"#
        }
        let cases: [(String, String)] = [
            (#", "journal": "j.sqlite", "store": {"sqlite": "s.sqlite"}"#, "journal: give either journal or store"),
            (#", "store": {"sqlite": "a", "postgres": {}}"#, "store: expected exactly one of sqlite or postgres"),
            (#", "store": {"mysql": "a"}"#, "store.mysql: unknown member"),
            (postgres(#""host": "10.1.2.3", "sslMode": "disable""#), "store.postgres.sslMode: disable may send"),
            (postgres(#""host": "db.internal", "sslMode": "tls""#), "store.postgres.sslMode"),
            (postgres(#""host": "127.0.0.1", "port": 70000"#), "store.postgres.port"),
            (postgres(#""host": "127.0.0.1", "password": "x""#), "store.postgres.password: unknown member"),
            (postgres(#""host": "127.0.0.1", "sslMode": "disable", "port": 1"#), "store.postgres:"),
        ]
        for (index, (extra, expected)) in cases.enumerated() {
            let path = try ServeTests.config(directory, extra)
            let renamed = directory.path("bad-\(index).json")
            try FileManager.default.moveItem(atPath: path, toPath: renamed)
            let result = try await Binary.run(["serve", "check-config", "--config", renamed])
            #expect(result.status == 65 && result.stdout.isEmpty, "\(extra): \(result)")
            #expect(result.stderr.contains(expected), "\(extra): \(result.stderr)")
            #expect(!result.stderr.contains("secret-pw-6d2e"), "the password never appears")
        }
    }

    @Test("Idempotency-Key: a retry gets the stored answer, across a restart; other body 422; per client; bad keys 400")
    func headerKeys() async throws {
        let directory = try TemporaryDirectory()
        let config = try ServeTests.config(directory, #", "auditLog": "audit.jsonl""#, clients: Self.clients)
        var service = try await ServiceProcess.start(config: config)
        let body = Self.personalSign("0x68656c6c6f")
        let first = try await post(service, body, key: "order-1")
        #expect(first.status == 200 && first.header("Idempotent-Replayed") == nil, "\(first)")
        let again = try await post(service, body, key: "order-1")
        #expect(again.status == 200 && again.body == first.body, "\(again)")
        #expect(again.header("Idempotent-Replayed") == "true")
        let other = try await post(service, Self.personalSign("0x01"), key: "order-1")
        #expect(other.status == 422, "another body under a used key: \(other)")
        let otherClient = try await post(service, body, key: "order-1", token: Self.otherToken)
        #expect(otherClient.status == 200 && otherClient.header("Idempotent-Replayed") == nil, "keys are per client")
        for (key, extra) in [
            ("a b", [HTTPHeader]()), (String(repeating: "k", count: 256), []),
            ("one", [HTTPHeader("Idempotency-Key", "two")]),
        ] {
            let refused = try await post(service, body, key: key, extra: extra)
            #expect(refused.status == 400, "\(key.prefix(8)): \(refused)")
        }
        // A failed call is not kept: the retry runs again (and fails again).
        let failing = #"{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":[]}"#
        for _ in 0..<2 {
            let failed = try await post(service, failing, key: "bad-1")
            #expect(failed.status == 200 && failed.header("Idempotent-Replayed") == nil, "\(failed)")
            #expect(try JSONValue(parsing: failed.body)["error"] != nil)
        }
        // Without a key nothing is kept.
        #expect(try await post(service, body, key: nil).header("Idempotent-Replayed") == nil)
        #expect(await service.stop() == 0)

        // The store is the SQLite file beside the configuration: the answer survives a restart.
        service = try await ServiceProcess.start(config: config)
        let restarted = try await post(service, body, key: "order-1")
        #expect(restarted.body == first.body && restarted.header("Idempotent-Replayed") == "true", "\(restarted)")
        #expect(await service.stop() == 0)

        let audit = try String(contentsOfFile: directory.path("audit.jsonl"), encoding: .utf8)
        let outcomes = try audit.split(separator: "\n").map { try JSONValue(parsing: String($0))["outcome"] }
        #expect(
            outcomes == ["ok", "replayed", "ok", "error", "error", "ok", "replayed"],
            "one line per call, replays marked: \(audit)")
    }

    @Test("signerkit_signActions idempotencyKey: the same actions get the stored results; other actions are refused")
    func signActionsKeys() async throws {
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(
            config: try ServeTests.config(directory, #", "auditLog": "audit.jsonl""#))
        func signActions(_ actions: [JSONValue], key: String) async throws -> JSONValue {
            let params = JSONValue.object(
                JSONObject(["actions": .array(actions), "idempotencyKey": .string(key)]))
            let body = JSONValue.object(
                JSONObject([
                    "jsonrpc": "2.0", "id": 1, "method": "signerkit_signActions", "params": .array([params]),
                ]))
            let response = try await post(service, body.serialized, key: nil)
            #expect(response.status == 200)
            return try JSONValue(parsing: response.body)
        }
        let actions = [Actions.personalSign(.wire, "0x68656c6c6f"), try Actions.typedData(.sdk)]
        let first = try await signActions(actions, key: "batch-1")
        try #require(first["result"]?.arrayValue?.count == 2, "\(first.serialized)")
        #expect(try await signActions(actions, key: "batch-1") == first)
        let refused = try await signActions([Actions.personalSign(.wire, "0x01")], key: "batch-1")
        #expect(refused["error"]?["code"] == .number("-32602"), "\(refused.serialized)")
        #expect(refused["error"]?["message"]?.stringValue?.contains("idempotencyKey") == true)
        #expect(await service.stop() == 0)
        let audit = try String(contentsOfFile: directory.path("audit.jsonl"), encoding: .utf8)
        let outcomes = try audit.split(separator: "\n").map { try JSONValue(parsing: String($0))["outcome"] }
        #expect(outcomes == ["ok", "replayed", "error"], "\(audit)")
    }

    @Test(
        "two instances, one PostgreSQL store: alternating and retried eth_sendTransaction mine once each, nonces 0…n-1")
    func twoInstancesShareOneStore() async throws {
        let node = try await LocalEVM.start(fund: [try Address(Actions.address)], chainId: 2021)
        defer { node.stop() }
        let directory = try TemporaryDirectory()
        let store = try await ServeTests.postgresStore(directory).member
        let config = try ServeTests.config(
            directory, #", "upstream": {"eip155:2021": "\#(node.url.absoluteString)"}, "store": \#(store)"#)
        #expect(try await Binary.run(["serve", "check-config", "--config", config]).status == 0)
        let instances = [
            try await ServiceProcess.start(config: config), try await ServiceProcess.start(config: config),
        ]
        let recipient = "0x2d5fd9e4a3a225a78329a64d022581275b4ca416"
        func send(_ index: Int, to instance: ServiceProcess) async throws -> HTTPResponse {
            let value = "0x" + String(1000 + index, radix: 16)
            let body =
                #"{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"\#(Actions.address)","to":"\#(recipient)","value":"\#(value)"}]}"#
            return try await post(instance, body, key: "tx-\(index)")
        }
        func hash(_ response: HTTPResponse) throws -> String {
            let answer = try JSONValue(parsing: response.body)
            return try #require(answer["result"]?.stringValue, "\(response.status) \(answer.serialized)")
        }
        let count = 12
        var hashes: [String] = []
        for index in 0..<count {
            let sent = try hash(try await send(index, to: instances[index % 2]))
            hashes.append(sent)
            if index % 3 == 0 {
                // A retry through the other instance: the stored answer, nothing signed.
                let retry = try await send(index, to: instances[(index + 1) % 2])
                #expect(try hash(retry) == sent && retry.header("Idempotent-Replayed") == "true")
            }
        }
        // The same key through both instances at once: one runs; the other waits its turn (409) or replays.
        async let left = send(count, to: instances[0])
        async let right = send(count, to: instances[1])
        let pair = try await [left, right]
        #expect(pair.allSatisfy { [200, 409].contains($0.status) } && pair.contains { $0.status == 200 }, "\(pair)")
        let raced = try hash(try #require(pair.first { $0.status == 200 }))
        let settled = try await send(count, to: instances[0])
        #expect(try hash(settled) == raced)
        hashes.append(raced)

        var nonces: [String] = []
        for hash in hashes {
            let receipt = try await node.call("eth_getTransactionReceipt", [.string(hash)])
            #expect(receipt["status"]?.stringValue == "0x1", "\(receipt.serialized)")
            let transaction = try await node.call("eth_getTransactionByHash", [.string(hash)])
            nonces.append(transaction["nonce"]?.stringValue ?? "?")
        }
        #expect(nonces == (0...count).map { "0x" + String($0, radix: 16) }, "consecutive nonces, none twice")
        let mined = try await node.call("eth_getTransactionCount", [.string(Actions.address), "latest"])
        #expect(mined.stringValue == "0x" + String(count + 1, radix: 16), "exactly one transaction per key")
        for instance in instances { #expect(await instance.stop() == 0) }
    }
}
