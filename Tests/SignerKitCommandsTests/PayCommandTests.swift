import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
import Testing
import WalletConnectPay
import WalletConnectPayTesting

/// `signerkit pay` (the built binary) against the local Pay service behind the fault-injecting proxy.
@Suite(
    "signerkit pay under faults",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct PayCommandTests {
    /// A throwaway key file (mode 0600).
    static func keyFile(_ directory: TemporaryDirectory) throws -> String {
        let path = try directory.write("key", "0x" + String(repeating: "4c", count: 32))
        chmod(path, 0o600)
        return path
    }

    struct Setup {
        let service: LocalPayService
        let proxy: FaultServer
        let directory: TemporaryDirectory
        let id: String

        static func start(processingTime: Duration = .milliseconds(150)) async throws -> Setup {
            let service = try LocalPayService(
                configuration: LocalPayService.Configuration(pollInMs: 50, processingTime: processingTime))
            let proxy = try await FaultServer.start(upstream: service.baseURL)
            let id = service.createPayment(.init(optionKinds: [.erc3009]))
            return Setup(service: service, proxy: proxy, directory: try TemporaryDirectory(), id: id)
        }

        func stop() {
            proxy.stop()
            service.stop()
        }

        func pay(_ extra: [String] = []) async throws -> CommandResult {
            try await Binary.run(
                [
                    "pay", id, "--api-url", proxy.url.absoluteString, "--key-file",
                    try PayCommandTests.keyFile(directory),
                    "--app-id", "test-app",
                ] + extra)
        }

        func seen(_ suffix: String) async throws -> [SeenRequest] {
            try await proxy.requests().filter { $0.pathOnly.hasSuffix(suffix) }
        }
    }

    @Test("--log: one JSON line on stderr per request and answer; no header, no body, no API key")
    func logLines() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let secret = "wcp-test-key-" + String(repeating: "7f", count: 12)
        let keyFile = try setup.directory.write("api.key", secret + "\n")
        chmod(keyFile, 0o600)
        let result = try await Binary.run([
            "pay", setup.id, "--api-url", setup.proxy.url.absoluteString, "--key-file",
            try Self.keyFile(setup.directory), "--api-key-file", keyFile, "--log",
        ])
        #expect(result.status == 0, "\(result)")
        let lines = result.stderr.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
            .filter { $0["msg"]?.stringValue == "pay api" }
        #expect(
            lines.contains {
                $0["endpoint"]?.stringValue == "options" && $0["status"] == .number("200")
                    && $0["path"]?.stringValue == "/v1/gateway/payment/\(setup.id)/options"
            }, "\(result.stderr)")
        #expect(lines.contains { $0["endpoint"]?.stringValue == "confirm" && $0["sent"] != nil }, "\(result.stderr)")
        // Neither the key (a header) nor a body (the accounts, the signatures) reaches the log.
        #expect(!result.stderr.contains(secret))
        #expect(!lines.contains { $0.serialized.contains("eip155:") || $0.serialized.contains("0x") })
    }

    @Test("without --account: the key's address on every chain the client supports, in the options request")
    func defaultAccounts() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let result = try await setup.pay()
        #expect(result.status == 0, "\(result)")
        let address = "0x" + String(repeating: "4c", count: 32)
        let signer = try PrivateKey(hex: address).address.checksummed
        let chains = PayAccounts.defaultChains.map(\.description)
        #expect(chains == ["eip155:8453", "eip155:1", "eip155:10", "eip155:42161", "eip155:137"])
        #expect(result.stdoutLines.first == "accounts: " + chains.map { "\($0):\(signer)" }.joined(separator: ", "))
        let options = try #require(try await setup.seen("/options").first)
        let sent = try JSONValue(parsing: options.body)["accounts"]?.arrayValue?.compactMap(\.stringValue)
        #expect(sent?.map { $0.lowercased() } == chains.map { "\($0):\(signer.lowercased())" })
    }

    @Test("--max-poll-ms 2000 against a status endpoint that never answers: exit 65 naming the deadline")
    func hangingStatus() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        // The confirm is answered "processing" at once (the service would hold it the whole 2000 ms), so the
        // command polls the status, which never answers.
        try await setup.proxy.add(
            FaultRule(
                .respond, pathSuffix: "/confirm", status: 200,
                body: #"{"status":"processing","isFinal":false,"pollInMs":10,"info":null}"#),
            FaultRule(.hang, pathSuffix: "/status", times: -1))
        // The status never answers: only the deadline can end the run (without it the child would poll until
        // `waitForExit` kills it, and the test fails). How long the deadline takes is tested in process on a
        // manual clock (PayClientTests), not here against a loaded machine's clock.
        let result = try await setup.pay(["--max-poll-ms", "2000"])
        expectInvalid(result, "no final status before the deadline")
        #expect(try await setup.seen("/confirm").count == 1)
    }

    @Test("a confirm whose connection is reset after handling: exit 0 with the final status, confirmed once")
    func resetAfterConfirm() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        try await setup.proxy.add(FaultRule(.dropAfterForward, pathSuffix: "/confirm"))
        let result = try await setup.pay()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.last == "final: succeeded", "\(result)")
        #expect(try await setup.seen("/confirm").count == 1)
        #expect(setup.service.confirmationCount(paymentId: setup.id) == 1)
    }

    @Test("429 with Retry-After 1e16, then 503: no crash, the capped wait, exit 0")
    func hugeRetryAfter() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        try await setup.proxy.add(
            FaultRule(
                .respond, pathSuffix: "/options", status: 429, body: #"{"code":"rate_limited","message":"slow"}"#,
                headers: ["Retry-After": "1e16"]),
            FaultRule(.respond, pathSuffix: "/options", status: 503, body: "busy"))
        // An uncapped wait would never end (`waitForExit` kills the child, and the test fails); the cap itself is
        // tested on a manual clock (RetryingHTTPCallTests).
        let result = try await setup.pay()
        #expect(result.status == 0, "\(result)")
        #expect(try await setup.seen("/options").count == 3)
    }

    @Test("a redirect to another origin: exit 65 naming the host; the other origin sees nothing")
    func redirect() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let other = try await FaultServer.start()
        defer { other.stop() }
        try await setup.proxy.add(
            FaultRule(.redirect, pathSuffix: "/options", status: 307, location: "http://localhost:\(other.port)/steal"))
        let result = try await setup.pay()
        expectInvalid(result, "redirect refused", "localhost")
        #expect(try await other.requests().isEmpty)
        #expect(try await setup.seen("/confirm").isEmpty)
    }
}
