import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing
import WalletConnectPay
import WalletConnectPayTesting

/// The Pay client through the fault-injecting proxy (scripts/fault-server) in front of the local
/// service, over real HTTP on 127.0.0.1: what the client does and what the proxy saw.
@Suite("Pay client under faults")
struct PayFaultTests {
    struct Setup {
        let service: LocalPayService
        let proxy: FaultServer
        let client: PayClient
        let key: SoftwareKeySigner
        let dispatcher: RpcDispatcher
        let id: String

        static func start(
            processingTime: Duration = .milliseconds(150), requestTimeout: Duration = .seconds(30),
            kinds: [LocalPayService.OptionKind] = [.erc3009], quoteLifetime: Duration = .seconds(300),
            clock: any SignerClock = SystemClock()
        ) async throws -> Setup {
            let service = try startService(processingTime: processingTime, quoteLifetime: quoteLifetime)
            let proxy = try await FaultServer.start(upstream: service.baseURL)
            let client = PayClient(
                configuration: PayClientConfiguration(
                    baseURL: proxy.url, authentication: .appId("test-app", clientId: "test-client"), retry: fastRetry,
                    connectTimeout: .seconds(5), requestTimeout: requestTimeout),
                clock: clock)
            let (key, dispatcher) = try makeWallet()
            let id = service.createPayment(.init(optionKinds: kinds))
            return Setup(service: service, proxy: proxy, client: client, key: key, dispatcher: dispatcher, id: id)
        }

        func stop() {
            proxy.stop()
            service.stop()
        }

        /// Options, actions and signatures for the first option, ready to confirm.
        func signed() async throws -> (String, SignedActions) {
            let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
            let option = try #require(options.options.first).id
            let actions = try await client.requiredActions(paymentId: id, optionId: option)
            return (option, try await dispatcher.sign(actions: actions))
        }

        func seen(_ suffix: String) async throws -> [SeenRequest] {
            try await proxy.requests().filter { $0.pathOnly.hasSuffix(suffix) }
        }
    }

    @Test(
        "a confirm whose answer is lost after handling (reset, truncated, hang): the status shows it went through; sent once",
        arguments: [
            FaultRule(.dropAfterForward, pathSuffix: "/confirm"), FaultRule(.truncate, pathSuffix: "/confirm"),
            FaultRule(.hang, pathSuffix: "/confirm", forward: true),
        ])
    func lostConfirmAnswer(rule: FaultRule) async throws {
        let setup = try await Setup.start(requestTimeout: .seconds(2))
        defer { setup.stop() }
        let (option, signed) = try await setup.signed()
        try await setup.proxy.add(rule)
        // The hang ends by the 2 s request timeout (libcurl's, on a real socket: the subject).
        let final = try await setup.client.confirmPayment(paymentId: setup.id, optionId: option, signed: signed)
        #expect(final.status == .succeeded)
        #expect(try await setup.seen("/confirm").count == 1, "\(rule.action)")
        #expect(setup.service.confirmationCount(paymentId: setup.id) == 1)
        #expect(try await setup.seen("/status").count >= 1)
    }

    @Test("a confirm reset before it reached the service: the status still requires action, the same results go again")
    func resetBeforeConfirm() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let (option, signed) = try await setup.signed()
        try await setup.proxy.add(FaultRule(.reset, pathSuffix: "/confirm"))
        let final = try await setup.client.confirmPayment(paymentId: setup.id, optionId: option, signed: signed)
        #expect(final.status == .succeeded)
        let confirms = try await setup.seen("/confirm")
        #expect(confirms.count == 2)
        #expect(Set(confirms.map(\.body)).count == 1)  // one authorization, sent twice, processed once
        #expect(setup.service.confirmationCount(paymentId: setup.id) == 1)
        #expect(confirms.first?.action == "reset" && confirms.last?.action == nil)
    }

    @Test("a confirm reset every time: outcome unknown after bounded tries, never more than one processing")
    func confirmAlwaysReset() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let (option, signed) = try await setup.signed()
        try await setup.proxy.add(FaultRule(.reset, pathSuffix: "/confirm", times: -1))
        let error = await payError { () async throws(PayError) in
            try await setup.client.confirmPayment(paymentId: setup.id, optionId: option, signed: signed)
        }
        guard case .outcomeUnknown(.confirm, _)? = error else {
            Issue.record("expected outcomeUnknown, got \(String(describing: error))"); return
        }
        #expect(try await setup.seen("/confirm").count == fastRetry.maxRetries + 1)
        #expect(setup.service.confirmationCount(paymentId: setup.id) == 0)
    }

    /// The hanging requests end by libcurl's timeout at the 2 s deadline (real time on a real socket: the
    /// subject); the order of events shows the bound, not the time taken. The payment stays processing past
    /// any wait of the test (`processingTime` is the service's state, not a wait).
    @Test("status requests that never answer: maxPollMs 2000 ends the wait in time, requests in flight included")
    func hangingStatus() async throws {
        let setup = try await Setup.start(processingTime: .seconds(60))
        defer { setup.stop() }
        let (option, signed) = try await setup.signed()
        // The confirm is answered at once (the service would hold it the whole 2000 ms), so the client polls.
        try await setup.proxy.add(
            FaultRule(
                .respond, pathSuffix: "/confirm", status: 200,
                body: #"{"status":"processing","isFinal":false,"pollInMs":10,"info":null}"#),
            FaultRule(.hang, pathSuffix: "/status", times: -1))
        let error = await payError { () async throws(PayError) in
            try await setup.client.confirmPayment(
                paymentId: setup.id, optionId: option, signed: signed, maxPollMs: 2000)
        }
        #expect(error == .pollingTimedOut(lastStatus: .processing))
        // Every status request (a loaded machine may leave no time for one) asked the server to hold it no
        // longer than what was left of the 2000 ms.
        for poll in try await setup.seen("/status") {
            let held = poll.path.split(separator: "maxPollMs=").last.flatMap { Int($0.prefix { $0.isNumber }) }
            #expect(held.map { $0 <= 2000 } == true, "\(poll.path)")
        }
    }

    @Test("500/503 then success, Retry-After 1e16 capped, truncated bodies retried for reads")
    func retries() async throws {
        let clock = SkippingClock()
        let setup = try await Setup.start(clock: clock)
        defer { setup.stop() }
        try await setup.proxy.add(
            FaultRule(.respond, pathSuffix: "/options", status: 503, body: #"{"code":"busy","message":"x"}"#),
            FaultRule(.respond, pathSuffix: "/options", status: 500, body: "oops"),
            FaultRule(.respond, method: "GET", status: 429, headers: ["Retry-After": "1e16"]),
            FaultRule(.respond, method: "GET", status: 429, headers: ["Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"]),
            FaultRule(.truncate, method: "GET"))
        let options = try await setup.client.paymentOptions(paymentId: setup.id, accounts: [baseAccount(setup.key)])
        #expect(options.options.count == 1)
        let info = try await setup.client.payment(paymentId: setup.id)
        #expect(info.status == .requiresAction)
        // Capped waits (400 ms here), not 1e16 s or the year 9999: read off the clock, whose waits are skipped.
        let waits = clock.waits
        #expect(waits.count == 5, "\(waits)")  // two for /options, three for GET /payment
        #expect(waits.allSatisfy { $0 <= .milliseconds(400) }, "\(waits)")
        #expect(waits.filter { $0 > .milliseconds(300) }.count == 2, "the two Retry-After waits at the cap: \(waits)")
        #expect(try await setup.seen("/options").count == 3)
        #expect(try await setup.proxy.requests().filter { $0.method == "GET" }.count == 4)
    }

    @Test("redirects are refused; no request with credentials reaches another origin")
    func redirects() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        let other = try await FaultServer.start()
        defer { other.stop() }
        for status in [302, 307, 308] {
            try await setup.proxy.add(
                FaultRule(.redirect, pathSuffix: "/options", status: status, location: other.url.absoluteString + "/x"))
            let error = await payError { () async throws(PayError) in
                try await setup.client.paymentOptions(paymentId: setup.id, accounts: [baseAccount(setup.key)])
            }
            #expect(error == .redirectRefused(endpoint: .options, status: status, host: "127.0.0.1"))
        }
        try await setup.proxy.add(FaultRule(.redirect, status: 301, location: "https://evil.example.org/steal"))
        let error = await payError { () async throws(PayError) in try await setup.client.payment(paymentId: setup.id) }
        #expect(error == .redirectRefused(endpoint: .payment, status: 301, host: "evil.example.org"))
        #expect("\(error.map { "\($0)" } ?? "")".contains("evil.example.org"))
        #expect(try await other.requests().isEmpty)
        #expect(try await setup.proxy.requests().allSatisfy { $0.hasCredentials })
        #expect(try await setup.proxy.requests().count == 4)
    }

    @Test("payment ids that would leave their path segment are refused before any request")
    func paymentIds() async throws {
        let setup = try await Setup.start()
        defer { setup.stop() }
        for id in ["..", ".", "%2e%2E", "a/b", "a?b", "a#b", "a\\b", "a\nb"] {
            let error = await payError { () async throws(PayError) in try await setup.client.payment(paymentId: id) }
            guard case .invalidPaymentLink(.invalidPaymentId)? = error else {
                Issue.record("\(id.debugDescription): \(String(describing: error))"); continue
            }
        }
        let flow = PayFlow(client: setup.client, dispatcher: setup.dispatcher)
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: "https://pay.walletconnect.com/..", accounts: [baseAccount(setup.key)])
        }
        guard case .invalidPaymentLink? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(try await setup.proxy.requests().isEmpty)
    }
}
