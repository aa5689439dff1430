import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKitCurl
import SignerKitSupport
import SignerKitTestSupport
import Testing

/// Crash tests that do not depend on luck (issue 30): a `signerkit serve` (debug build, with the
/// `SIGNERKIT_CRASH_AT` hook) is killed with SIGKILL at each named step of a payment in turn, restarted, and
/// retried — with the same key, with the same key and another body, and with no key — and the chain is
/// checked: at most one transaction per key, no success told that is not on chain, no account left stalled.
@Suite(
    "signerkit serve: killed at every step of a payment",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct CrashStepTests {
    static let payee = "0x00000000000000000000000000000000000000aa"
    static let otherPayee = "0x00000000000000000000000000000000000000bb"
    static let thirdPayee = "0x00000000000000000000000000000000000000cc"
    let transport = CurlHTTPTransport()

    static func payment(_ wei: Int, to: String) -> String {
        #"{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"\#(Actions.address)","to":"\#(to)","value":"0x\#(String(wei, radix: 16))"}]}"#
    }

    /// POSTs `body` (with `key` as its Idempotency-Key); `nil` when the connection broke (the service died).
    func post(_ service: ServiceProcess, _ body: String, key: String?) async -> HTTPResponse? {
        var headers = [
            HTTPHeader("Content-Type", "application/json"), HTTPHeader("Authorization", "Bearer \(ServeTests.token)"),
        ]
        if let key { headers.append(HTTPHeader("Idempotency-Key", key)) }
        let request = HTTPRequest(
            method: "POST", url: service.url, headers: headers, body: Array(body.utf8), timeout: .seconds(30))
        return try? await transport.send(request)
    }

    /// The transaction hash of a 200 answer.
    static func hash(_ response: HTTPResponse?) -> String? {
        guard let response, response.status == 200 else { return nil }
        return (try? JSONValue(parsing: response.body))?["result"]?.stringValue
    }

    @Test(
        "killed at a step, restarted: the key's retry is one transaction, told as on chain; no stall",
        arguments: CrashStep.allCases)
    func killedAt(step: CrashStep) async throws {
        let node = try await LocalEVM.start(fund: [try Address(Actions.address)], chainId: 2021)
        defer { node.stop() }
        let chain = JSONRPCClient(url: node.url)
        let directory = try TemporaryDirectory()
        // Short limits so a dead instance's idempotency claim (4 s) and nonce reservation (2 s) lapse soon.
        let config = try ServeTests.config(
            directory,
            #", "upstream": {"eip155:2021": "\#(node.url.absoluteString)"}, "auditLog": "audit.jsonl", "limits": {"requestTimeoutMs": 1000, "idempotencyLeaseMs": 4000}"#
        )
        let body = Self.payment(111, to: Self.payee)

        let doomed = try await ServiceProcess.start(config: config, environment: ["SIGNERKIT_CRASH_AT": step.rawValue])
        let lost = await post(doomed, body, key: "order-1")
        let ended = await doomed.awaitExit(within: .seconds(30))
        try #require(
            ended?.reason == .uncaughtSignal && ended?.status == SIGKILL,
            "\(step): not killed: \(String(describing: ended)), answered \(String(describing: lost?.status))")

        let service = try await ServiceProcess.start(config: config)
        defer { service.stopInBackground() }
        // A retry while the dead instance's claim lives is told to wait (409); then it runs once.
        // The claim's lease is measured by the store's clock, in real time: poll until it has lapsed.
        // A retry that runs out of its (one second) request time on a loaded machine is retried again: under
        // one key every retry is the same transaction, so retrying until an answer comes is what a client does.
        let retried = await RealTime.first(within: .seconds(30)) { () -> HTTPResponse? in
            let answer = await post(service, body, key: "order-1")
            return Self.hash(answer) == nil ? nil : answer
        }
        let told = try #require(
            Self.hash(retried),
            "\(step): retry answered \(String(describing: retried?.status)) \(String(decoding: retried?.body ?? [], as: UTF8.self))"
        )
        let receipt = try #require(
            try await chain.transactionReceipt(try Bytes32(hex: told)), "\(step): told \(told), not on chain")
        #expect(receipt.succeeded)
        #expect(
            try await chain.transactionCount(of: try Address(Actions.address), block: .latest) == 1,
            "\(step): one key, one transaction")

        // The same key with another body: refused, nothing sent.
        let reused = await post(service, Self.payment(999, to: Self.otherPayee), key: "order-1")
        #expect(reused?.status == 422, "\(step): \(String(describing: reused?.status))")
        // A payment without a key is mined at once: nothing stalls the account.
        // Under a key of its own, so that a retry after a request that ran out of time is the same payment.
        let fresh = try #require(
            await RealTime.first(within: .seconds(30)) {
                Self.hash(await post(service, Self.payment(5, to: Self.thirdPayee), key: "next-\(step)"))
            }, "\(step): the next payment failed")
        #expect(try await chain.transactionReceipt(try Bytes32(hex: fresh))?.succeeded == true)
        #expect(try await chain.transactionCount(of: try Address(Actions.address), block: .latest) == 2, "\(step)")
        let audit = try String(contentsOfFile: directory.path("audit.jsonl"), encoding: .utf8)
        let intents = audit.split(separator: "\n").filter { $0.contains(#""outcome":"intent""#) }.count
        #expect(intents >= 2, "\(step): every signing call wrote its intent first: \(audit)")
    }

    /// Runs an instance with `config` that is killed (SIGKILL) once the payment `body`, under key `order-1`,
    /// is journalled.
    func killMidPayment(config: String, body: String) async throws {
        let doomed = try await ServiceProcess.start(
            config: config, environment: ["SIGNERKIT_CRASH_AT": CrashStep.journalled.rawValue])
        _ = await post(doomed, body, key: "order-1")
        let ended = await doomed.awaitExit(within: .seconds(30))
        try #require(
            ended?.reason == .uncaughtSignal && ended?.status == SIGKILL, "not killed: \(String(describing: ended))")
    }

    /// Retries `body` under `order-1` on `service`: answered at once (no 409) with a hash that is mined, the
    /// account's only transaction.
    func expectRetryPaysOnce(_ service: ServiceProcess, _ body: String, chain: JSONRPCClient) async throws {
        let retried = await post(service, body, key: "order-1")
        let told = try #require(Self.hash(retried), "retry answered \(String(describing: retried?.status))")
        #expect(try await chain.transactionReceipt(try Bytes32(hex: told))?.succeeded == true)
        #expect(try await chain.transactionCount(of: try Address(Actions.address), block: .latest) == 1)
    }

    @Test("after a crash the dead run's claim is taken over once recovery has run: a retry is not told 409 for a lease")
    func claimTakenOverAfterRecovery() async throws {
        let node = try await LocalEVM.start(fund: [try Address(Actions.address)], chainId: 2021)
        defer { node.stop() }
        let chain = JSONRPCClient(url: node.url)
        let directory = try TemporaryDirectory()
        // The default lease (three request timeouts plus a minute): a retry waiting for it would see 409 for
        // well over the 30 s bound below.
        let config = try ServeTests.config(
            directory, #", "upstream": {"eip155:2021": "\#(node.url.absoluteString)"}"#)
        let body = Self.payment(111, to: Self.payee)
        try await killMidPayment(config: config, body: body)

        // A second instance on the same SQLite store is refused while one serves it.
        let service = try await ServiceProcess.start(config: config)
        defer { service.stopInBackground() }
        let second = try await Binary.run(["serve", "--config", config])
        #expect(second.status == 65 && second.stderr.contains("another instance serves this SQLite store"), "\(second)")

        let taken = try #require(
            await service.awaitLogLine(withMessagePrefix: "idempotency claims of earlier runs"),
            "the claim was not taken over")
        #expect(taken["released"] == .number("1"), "\(taken.serialized)")
        try await expectRetryPaysOnce(service, body, chain: chain)
    }

    @Test("PostgreSQL: the claim of an instance killed mid-payment is taken over after another's recovery sweep")
    func claimOfKilledInstanceTakenOverOnPostgres() async throws {
        let node = try await LocalEVM.start(fund: [try Address(Actions.address)], chainId: 2021)
        defer { node.stop() }
        let chain = JSONRPCClient(url: node.url)
        let directory = try TemporaryDirectory()
        let (store, database) = try await ServeTests.postgresStore(directory)
        // The default lease (three request timeouts plus a minute): a retry waiting for it would see 409 for
        // well over the 30 s bounds below.
        let config = try ServeTests.config(
            directory, #", "upstream": {"eip155:2021": "\#(node.url.absoluteString)"}, "store": \#(store)"#)
        let body = Self.payment(111, to: Self.payee)
        try await killMidPayment(config: config, body: body)
        // The server notices the closed socket and drops the dead instance's owner lock.
        let server = try await PostgresServer.shared.value
        let ownerLocks = """
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = \(0x534b_4f57)
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        let gone = await RealTime.first(within: .seconds(30)) {
            (try? await server.psql(ownerLocks, database: database)) == "0\n" ? true : nil
        }
        try #require(gone == true, "the killed instance's owner lock stayed")

        // Another instance's first sweep re-sends what the dead one journalled, then takes its claims over.
        let service = try await ServiceProcess.start(config: config)
        defer { service.stopInBackground() }
        let taken = try #require(
            await service.awaitLogLine(withMessagePrefix: "idempotency claims of stopped instances"),
            "the claim was not taken over")
        #expect(taken["instances"] == .number("1"), "\(taken.serialized)")
        try await expectRetryPaysOnce(service, body, chain: chain)
    }
}
