import EIP712
import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitCurl
import SignerKitHTTPServer
import SignerKitTestSupport
import SoftwareSigner
import Testing
import WalletConnectPay

/// The client against the local service over real HTTP on 127.0.0.1.
@Suite("Pay client")
struct PayClientTests {
    @Test("options, signature, confirm and the final status; wire names and headers")
    func happyPath() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(amountCents: 250))
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet()
        let answer = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let info = try #require(answer.info)
        #expect(info.merchant.name == "SignerKit Coffee")
        #expect(info.amount.description == "2.50 USD")
        #expect(info.status == .requiresAction)
        #expect(answer.options.count == 3)
        let option = try #require(answer.option(try optionId(.erc3009, in: answer)))
        #expect(option.account == baseAccount(key).description)
        #expect(option.amount.value == "2500000")
        #expect(option.amount.description == "2.500000 USDC on Base")
        #expect(option.amount.unit == "caip19/eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")

        // The action is the Pay wire shape: snake_case chain_id, typed data as a JSON string with hex quantities.
        let logged = try #require(service.requests(to: .options).first)
        #expect(logged.queryValue("includePaymentInfo") == "true")
        #expect(logged.body == #"{"accounts":["\#(baseAccount(key))"],"refresh":null}"#)
        #expect(logged.header("WCP-Version") == "2026-02-19.preview")
        #expect(logged.header("Sdk-Name") == "signerkit-swift")
        #expect(logged.header("Sdk-Version") != nil && logged.header("Sdk-Platform") != nil)
        #expect(logged.header("App-Id") == "test-app" && logged.header("Client-Id") == "test-client")
        #expect(logged.header("Api-Key") == nil)

        let actions = try await client.requiredActions(paymentId: id, optionId: option.id)
        #expect(actions.count == 1)
        #expect(actions[0].method == "eth_signTypedData_v4")
        let params = try JSONValue(parsing: actions[0].params)
        let typed = try JSONValue(parsing: try #require(params.arrayValue?[1].stringValue))
        #expect(typed["primaryType"]?.stringValue == "ReceiveWithAuthorization")
        #expect(typed["domain"]?["chainId"]?.stringValue == "0x2105")
        #expect(typed["message"]?["value"]?.stringValue == "0x2625a0")

        let signed = try await dispatcher.sign(actions: actions)
        let statuses = StatusLog()
        let final = try await client.confirmPayment(
            paymentId: id, optionId: option.id, signed: signed, onStatus: { statuses.append($0) })
        #expect(final.status == .succeeded)
        #expect(final.isFinal)
        #expect(final.info?.optionAmount.value == "2500000")
        #expect(final.info?.txId.hasPrefix("0x") == true)
        let confirm = try #require(service.requests(to: .confirm).first)
        #expect(
            confirm.body
                == #"{"optionId":"\#(option.id)","results":[{"type":"walletRpc","data":["\#(signed.results[0])"]}]}"#)
        #expect(confirm.queryValue("maxPollMs") == nil)
        #expect(statuses.all.first?.status == .processing)
        #expect(statuses.all.last == final)
        #expect(service.status(of: id) == .succeeded)
    }

    @Test("Api-Key authentication; a service that requires it answers 401 without it")
    func apiKey() async throws {
        let service = try startService(requiredApiKey: "secret-key")
        defer { service.stop() }
        let id = service.createPayment()
        let good = makeClient(service, authentication: .apiKey("secret-key"))
        let info = try await good.payment(paymentId: id)
        #expect(info.status == .requiresAction)
        #expect(service.requests.last?.header("Api-Key") == "secret-key")
        #expect(service.requests.last?.header("App-Id") == nil)

        let anonymous = makeClient(service, authentication: .none)
        let error = await payError { () async throws(PayError) in try await anonymous.payment(paymentId: id) }
        guard case .http(let body)? = error else {
            Issue.record("expected .http, got \(String(describing: error))"); return
        }
        #expect(body.status == 401)
        #expect(body.code == "missing_auth_headers")
        #expect(PayAuthentication.apiKey("secret-key").description.contains("secret") == false)
    }

    // MARK: - Error mapping

    /// Options answers: 400/422/451 have options-specific meanings.
    @Test(
        "error mapping: options",
        arguments: [
            (400, "invalid_params", "invalidRequest"), (422, "params_validation", "invalidAccount"),
            (451, "sanctioned_user", "complianceFailed"), (404, "payment_not_found", "paymentNotFound"),
            (410, "payment_expired", "paymentExpired"), (409, "invalid_state", "http"),
            (429, "rate_limited", "rateLimited"), (401, "unauthorized", "http"), (503, "internal_error", "http"),
            (400, "quote_expired", "quoteExpired"), (422, "quote_expired", "quoteExpired"),
            (404, "option_not_found", "optionNotFound"),
        ])
    func optionsErrors(status: Int, code: String, expected: String) async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service, retry: .none)
        let key = SoftwareKeySigner.generate()
        service.inject(.status(status, code: code, message: "injected"), on: .options)
        let error = try #require(
            await payError { () async throws(PayError) in
                try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
            })
        #expect(Self.name(error) == expected)
        #expect(error.apiError == PayAPIError(status: status, code: code, message: "injected", endpoint: .options))
    }

    /// Fetch, confirm and status answers.
    @Test(
        "error mapping: fetch, confirm, status",
        arguments: [PayEndpoint.fetch, .confirm, .status],
        [
            (400, "invalid_params", "invalidOption"), (422, "params_validation", "invalidSignature"),
            (404, "payment_not_found", "paymentNotFound"), (410, "payment_expired", "paymentExpired"),
            (409, "invalid_state", "routeExpired"), (429, "rate_limited", "rateLimited"),
            (451, "sanctioned_user", "http"),
            (500, "internal_error", "http"), (400, "quote_expired", "quoteExpired"),
            (404, "option_not_found", "optionNotFound"), (400, "option_not_found", "optionNotFound"),
        ])
    func otherErrors(endpoint: PayEndpoint, answer: (Int, String, String)) async throws {
        let (status, code, expected) = answer
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service, retry: .none)
        let (key, dispatcher) = try makeWallet(nodes: [base: StubNode()])
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let permit2 = try optionId(.permit2, in: options)
        service.inject(.status(status, code: code, message: "injected"), on: endpoint)
        let error: PayError?
        switch endpoint {
        case .fetch:
            error = await payError { () async throws(PayError) in
                try await client.requiredActions(paymentId: id, optionId: permit2)
            }
        case .confirm:
            let actions = try await client.requiredActions(paymentId: id, optionId: permit2)
            let signed = try await dispatcher.sign(actions: actions)
            error = await payError { () async throws(PayError) in
                try await client.confirmPayment(paymentId: id, optionId: permit2, signed: signed)
            }
        default:
            error = await payError { () async throws(PayError) in try await client.paymentStatus(paymentId: id) }
        }
        let mapped = try #require(error)
        if endpoint == .confirm && status >= 500 {
            // A 5xx may hide a processed confirm: the status was asked (still requires_action), nothing re-sent.
            #expect(Self.name(mapped) == "outcomeUnknown", "\(mapped)")
            #expect(service.requests(to: .confirm).count == 1)
            #expect(service.requests(to: .status).count == 1)
            return
        }
        // Upstream: a 409 is a route expiry from confirm only; elsewhere it is the HTTP error.
        let expectedHere = status == 409 && endpoint != .confirm ? "http" : expected
        #expect(Self.name(mapped) == expectedHere, "\(endpoint) \(status) \(code)")
        #expect(mapped.apiError?.endpoint == endpoint)
        #expect(mapped.apiError?.code == code)
    }

    @Test("errors the service raises itself: unknown and expired payments, sanctions, stale routes")
    func realErrors() async throws {
        let (key, _) = try makeWallet()
        let sanctioned = SoftwareKeySigner.generate()
        let service = try startService(sanctioned: [sanctioned.address])
        defer { service.stop() }
        let client = makeClient(service)
        let accounts = [baseAccount(key)]

        var error = await payError { () async throws(PayError) in
            try await client.paymentOptions(paymentId: "pay_nope", accounts: accounts)
        }
        #expect(error.map(Self.name) == "paymentNotFound")
        #expect(service.requests(to: .options).count == 1)  // 404 is not retried

        let expired = service.createPayment()
        service.expirePayment(paymentId: expired)
        error = await payError { () async throws(PayError) in
            try await client.paymentOptions(paymentId: expired, accounts: accounts)
        }
        #expect(error.map(Self.name) == "paymentExpired")
        let status = try await client.paymentStatus(paymentId: expired)
        #expect(status.status == .expired && status.isFinal)

        let id = service.createPayment()
        error = await payError { () async throws(PayError) in
            try await client.paymentOptions(paymentId: id, accounts: [baseAccount(sanctioned)])
        }
        #expect(error.map(Self.name) == "complianceFailed")
        #expect(error?.apiError?.code == "sanctioned_user")

        let options = try await client.paymentOptions(paymentId: id, accounts: accounts)
        service.expireRoutes(paymentId: id)
        error = await payError { () async throws(PayError) in
            try await client.requiredActions(paymentId: id, optionId: try! optionId(.permit2, in: options))
        }
        // Upstream maps 409 to a route expiry on confirm only: from fetch it is the HTTP error.
        #expect(error.map(Self.name) == "http" && error?.apiError?.status == 409)

        error = await payError { () async throws(PayError) in
            try await client.requiredActions(paymentId: id, optionId: "opt_missing")
        }
        #expect(error == .unknownOption("opt_missing"))
        error = await payError { () async throws(PayError) in
            try await client.paymentOptions(paymentId: id, accounts: [])
        }
        #expect(error == .invalidAccounts("the list is empty"))
    }

    // MARK: - Retries

    @Test("5xx then success")
    func serverErrorsThenSuccess() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        service.inject(.status(503), on: .options, times: 2)
        service.inject(.status(500), on: .status, times: 3)
        let client = makeClient(service)
        let key = SoftwareKeySigner.generate()
        let answer = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        #expect(answer.options.count == 3)
        #expect(service.requests(to: .options).count == 3)
        let status = try await client.paymentStatus(paymentId: id)
        #expect(status.status == .requiresAction)
        #expect(service.requests(to: .status).count == 4)
    }

    @Test("429 with Retry-After is honoured (capped), waiting on the client's clock")
    func rateLimitedThenSuccess() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        service.inject(.status(429, code: "rate_limited", retryAfter: "5"), on: .payment)
        let clock = ManualClock()
        // Retry-After capped at 400 ms in tests (2 s in production). The attempts' deadlines are read on the
        // manual clock too, which stands still while the real HTTP exchange takes its time: the transport gives
        // each request the time it has left on that clock.
        let client = PayClient(
            configuration: PayClientConfiguration(
                baseURL: service.baseURL, authentication: .appId("test-app", clientId: "test-client"),
                retry: fastRetry),
            transport: ManualClockTransport(CurlHTTPTransport.shared, clock: clock), clock: clock)
        let task = Task { () async -> Result<PaymentInfo, PayError> in
            do throws(PayError) { return .success(try await client.payment(paymentId: id)) } catch {
                return .failure(error)
            }
        }
        try #require(await clock.asleep(orDone: task), "the 429 is followed by a wait")
        #expect(service.requests(to: .payment).count == 1)
        clock.advance(by: .milliseconds(399))
        #expect(clock.sleeperCount == 1, "Retry-After: 5 capped at 400 ms, not the 5-10 ms back-off")
        clock.advance(by: .milliseconds(1))
        try #require(clock.sleeperCount == 0, "woken at the cap")
        let info = try await clock.value(of: task).get()
        #expect(info.status == .requiresAction)
        #expect(service.requests(to: .payment).count == 2)
    }

    @Test("status polls wait pollInMs on the client's clock; maxPollMs, read on that clock, bounds the whole wait")
    func pollingOnClock() async throws {
        let processing = #"{"status":"processing","isFinal":false,"pollInMs":500,"info":null}"#
        let succeeded = #"{"status":"succeeded","isFinal":true,"info":null}"#
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.status(200, body: processing), .status(200, body: succeeded)])
        let client = PayClient(
            configuration: PayClientConfiguration(
                baseURL: try #require(URL(string: "https://pay.test")), authentication: .none, retry: fastRetry),
            transport: transport, clock: clock)
        let first = PaymentStatusResponse(status: .processing, isFinal: false, pollInMs: 300)
        let polling = Task { () async -> Result<PaymentStatusResponse, PayError> in
            do throws(PayError) {
                return .success(try await client.waitForFinalStatus(paymentId: "pay_1", from: first))
            } catch {
                return .failure(error)
            }
        }
        try #require(await clock.asleep(orDone: polling))
        clock.advance(by: .milliseconds(299))
        #expect(transport.requests.isEmpty, "the first poll waits the 300 ms the last status asked for")
        clock.advance(by: .milliseconds(1))
        try #require(await clock.asleep(orDone: polling))
        #expect(transport.requests.count == 1)
        clock.advance(by: .milliseconds(500))
        #expect(try await clock.value(of: polling).get().status == .succeeded)
        #expect(transport.requests.count == 2)
        #expect(transport.requests.allSatisfy { $0.method == "GET" && $0.url.path.hasSuffix("/pay_1/status") })

        // maxPollMs 600 from the clock's start: one poll (asking the server to hold it 300 ms, what is left),
        // then the deadline ends the wait with the last status.
        let bounded = ScriptedHTTPTransport([.status(200, body: processing)])
        let boundedClient = PayClient(
            configuration: PayClientConfiguration(
                baseURL: try #require(URL(string: "https://pay.test")), authentication: .none, retry: fastRetry),
            transport: bounded, clock: clock)
        let started = clock.now
        let timed = Task { () async -> Result<PaymentStatusResponse, PayError> in
            do throws(PayError) {
                return .success(
                    try await boundedClient.waitForFinalStatus(
                        paymentId: "pay_1", from: first, maxPollMs: 600, startedAt: started))
            } catch { return .failure(error) }
        }
        try #require(await clock.asleep(orDone: timed))
        clock.advance(by: .milliseconds(300))
        try #require(await clock.asleep(orDone: timed))
        #expect(bounded.requests.first?.url.query == "maxPollMs=300")
        clock.advance(by: .milliseconds(300))
        #expect(try await clock.value(of: timed) == .failure(.pollingTimedOut(lastStatus: .processing)))
        #expect(bounded.requests.count == 1)
    }

    @Test("retries are exhausted after 5: 5xx, 429 and dropped connections")
    func exhausted() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service)

        service.inject(.status(502, code: "internal_error", message: "bad gateway"), on: .payment, times: 10)
        var error = await payError { () async throws(PayError) in try await client.payment(paymentId: id) }
        #expect(
            error == .http(PayAPIError(status: 502, code: "internal_error", message: "bad gateway", endpoint: .payment))
        )
        #expect(service.requests(to: .payment).count == 6)

        service.inject(.status(429, code: "rate_limited", retryAfter: "0"), on: .status, times: 10)
        error = await payError { () async throws(PayError) in try await client.paymentStatus(paymentId: id) }
        #expect(error.map(Self.name) == "rateLimited")
        #expect(service.requests(to: .status).count == 6)

        service.inject(.dropConnection, on: .fetch, times: 2)
        let key = SoftwareKeySigner.generate()
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let actions = try await client.requiredActions(paymentId: id, optionId: try optionId(.permit2, in: options))
        #expect(actions.count == 2)
        #expect(service.requests(to: .fetch).count == 3)

        service.inject(.dropConnection, on: .payment, times: 10)
        error = await payError { () async throws(PayError) in try await client.payment(paymentId: id) }
        guard case .transport? = error else {
            Issue.record("expected .transport, got \(String(describing: error))"); return
        }
    }

    @Test("transport errors and timeouts")
    func transportAndTimeout() async throws {
        let refusing = try RefusingPort()
        let refused = PayClient(
            configuration: PayClientConfiguration(
                baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!, authentication: .none,
                retry: PayRetryPolicy(maxRetries: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(5))))
        var error = await payError { () async throws(PayError) in try await refused.payment(paymentId: "pay_1") }
        withExtendedLifetime(refusing) {}
        guard case .transport? = error else {
            Issue.record("expected .transport, got \(String(describing: error))"); return
        }

        // The answer waits until the client has given up: libcurl's timeout on a real socket is the subject.
        let entered = Signal()
        let gaveUp = Signal()
        let slow = try HTTPServer { _ in
            entered.fire()
            await gaveUp.fired()
            return HTTPServerResponse(status: 200, body: Array("{}".utf8))
        }
        defer { slow.stopWithoutWaiting() }
        let impatient = PayClient(
            configuration: PayClientConfiguration(
                baseURL: try #require(URL(string: slow.baseURLString)), authentication: .none, retry: .none,
                connectTimeout: .milliseconds(300),
                requestTimeout: .milliseconds(500)))
        let clock = ContinuousClock()
        let started = clock.now
        error = await payError { () async throws(PayError) in try await impatient.payment(paymentId: "pay_1") }
        gaveUp.fire()
        guard case .timeout? = error else {
            Issue.record("expected .timeout, got \(String(describing: error))"); return
        }
        await entered.fired()  // the request was sent: the request timeout ended it, not the connect timeout
        // A lower bound only (a loaded machine makes it longer, never shorter): the timeout is not cut short.
        #expect(started.duration(to: clock.now) >= .milliseconds(450))
    }

    @Test("a long poll extends the timeouts by maxPollMs")
    func longPollTimeouts() async throws {
        let plainTimedOut = Signal()
        let slow = try HTTPServer { request in
            if request.query.contains("maxPollMs") {
                // A real wait (libcurl's real-time timeout is the subject): the answer comes after the 1 s
                // default timeout, well inside the long poll's. It runs on the connection's thread, so nothing
                // else in the test process delays it.
                try? await Task.sleep(for: .milliseconds(1500))
            } else {
                await plainTimedOut.fired()  // held until the client has given up
            }
            return HTTPServerResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                body: Array(#"{"status":"processing","isFinal":false,"pollInMs":10,"info":null}"#.utf8))
        }
        defer { slow.stopWithoutWaiting() }
        let client = PayClient(
            configuration: PayClientConfiguration(
                baseURL: try #require(URL(string: slow.baseURLString)), authentication: .none, retry: .none,
                connectTimeout: .seconds(1),
                requestTimeout: .seconds(1)))
        // 1 s timeouts + a long poll of 29 s: the 1.5 s answer arrives; the bound only ends a hang.
        let status = try await client.paymentStatus(paymentId: "pay_1", maxPollMs: 29_000)
        #expect(status.status == .processing)
        let clock = ContinuousClock()
        let started = clock.now
        let error = await payError { () async throws(PayError) in try await client.paymentStatus(paymentId: "pay_1") }
        plainTimedOut.fire()
        guard case .timeout? = error else {
            Issue.record("expected .timeout, got \(String(describing: error))"); return
        }
        // A lower bound only (a loaded machine makes it longer, never shorter): the timeout is not cut short.
        #expect(started.duration(to: clock.now) >= .milliseconds(900))
    }

    @Test("backoff: 1 s doubling, capped at 2 s, with jitter; Retry-After capped at 2 s")
    func backoffPolicy() {
        let policy = PayRetryPolicy.standard
        #expect(policy.maxRetries == 5)
        for _ in 0..<20 {
            let first = policy.backoff(retry: 0)
            #expect(first > .milliseconds(749) && first <= .seconds(1))
            for retry in 1..<5 {
                let later = policy.backoff(retry: retry)
                #expect(later > .milliseconds(1499) && later <= .seconds(2))
            }
        }
        let exact = PayRetryPolicy(jitter: 0)
        #expect(
            (0..<5).map(exact.backoff(retry:)) == [.seconds(1), .seconds(2), .seconds(2), .seconds(2), .seconds(2)])
        #expect(policy.delay(retry: 0, retryAfter: "1") == .seconds(1))
        #expect(policy.delay(retry: 0, retryAfter: "30") == .seconds(2))
        #expect(policy.delay(retry: 0, retryAfter: "0.25") == .milliseconds(250))
        // Values past Int64 milliseconds (which trapped: SIGILL) wait the cap.
        for huge in ["1e16", "9.3e15", "9223372036854775808", "1e308"] {
            #expect(policy.delay(retry: 0, retryAfter: huge) == .seconds(2), "\(huge)")
        }
        #expect(policy.delay(retry: 0, retryAfter: "-1e16") == .zero)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(policy.delay(retry: 0, retryAfter: "Tue, 14 Nov 2023 22:13:21 GMT", now: now) == .seconds(1))
        let fallback = policy.delay(retry: 3, retryAfter: "soon")
        #expect(fallback > .milliseconds(1499) && fallback <= .seconds(2))
    }

    // MARK: - Polling, quotes, idempotency

    @Test("polling: processing, then succeeded after pollInMs waits")
    func polling() async throws {
        let service = try startService(processingTime: .milliseconds(400), pollInMs: 40)
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet()
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let option = try optionId(.erc3009, in: options)
        let signed = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: option))
        let statuses = StatusLog()
        let final = try await client.confirmPayment(
            paymentId: id, optionId: option, signed: signed, onStatus: { statuses.append($0) })
        #expect(final.status == .succeeded)
        let seen = statuses.all
        #expect(seen.count >= 2)  // the confirm answer (processing) and at least one poll
        #expect(seen.dropLast().allSatisfy { $0.status == .processing && $0.pollInMs == 40 && !$0.isFinal })
        #expect(seen.last?.status == .succeeded)
        #expect(service.requests(to: .status).count == seen.count - 1)
    }

    @Test("maxPollMs: long poll on the server, and a client deadline")
    func maxPoll() async throws {
        let service = try startService(processingTime: .milliseconds(250), pollInMs: 40)
        defer { service.stop() }
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet()

        // The confirm itself is held until the payment is final.
        let id = service.createPayment()
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let option = try optionId(.erc3009, in: options)
        let signed = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: option))
        let final = try await client.confirmPayment(paymentId: id, optionId: option, signed: signed, maxPollMs: 5_000)
        #expect(final.status == .succeeded)
        #expect(service.requests(to: .confirm).first?.queryValue("maxPollMs") == "5000")
        #expect(service.requests(to: .status).isEmpty)

        // A deadline shorter than the processing time.
        let slowService = try startService(processingTime: .seconds(5), pollInMs: 20)
        defer { slowService.stop() }
        let slowClient = makeClient(slowService)
        let slowId = slowService.createPayment()
        let slowOptions = try await slowClient.paymentOptions(paymentId: slowId, accounts: [baseAccount(key)])
        let slowOption = try optionId(.erc3009, in: slowOptions)
        let slowSigned = try await dispatcher.sign(
            actions: try await slowClient.requiredActions(paymentId: slowId, optionId: slowOption))
        let error = await payError { () async throws(PayError) in
            try await slowClient.confirmPayment(
                paymentId: slowId, optionId: slowOption, signed: slowSigned, maxPollMs: 300)
        }
        // Still processing when the client gave up: the deadline, not the 5 s payment, ended the wait.
        #expect(error == .pollingTimedOut(lastStatus: .processing))
    }

    @Test("quote expiry: confirm answers quote_expired; fresh options and signatures then succeed")
    func quoteExpiry() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet()
        var options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let option = try optionId(.erc3009, in: options)
        let stale = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: option))
        service.expireQuotes(paymentId: id)
        let error = await payError { () async throws(PayError) in
            try await client.confirmPayment(paymentId: id, optionId: option, signed: stale)
        }
        guard case .quoteExpired(let body)? = error else {
            Issue.record("expected .quoteExpired, got \(String(describing: error))"); return
        }
        #expect(body.status == 400 && body.code == "quote_expired")

        options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)], refresh: [option])
        #expect(service.requests(to: .options).last?.body.contains(#""refresh":["\#(option)"]"#) == true)
        // The stale bundle answers the old quote's actions: refused before any request.
        let before = service.requests(to: .confirm).count
        let refused = await payError { () async throws(PayError) in
            try await client.confirmPayment(paymentId: id, optionId: option, signed: stale)
        }
        guard case .signedActionsMismatch? = refused else {
            Issue.record("expected a mismatch, got \(String(describing: refused))"); return
        }
        #expect(service.requests(to: .confirm).count == before)
        let fresh = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: option))
        let final = try await client.confirmPayment(paymentId: id, optionId: option, signed: fresh)
        #expect(final.status == .succeeded)
    }

    @Test("confirm is idempotent: a repeat, and a retry after a lost answer, record one confirmation")
    func idempotentConfirm() async throws {
        let service = try startService(processingTime: .milliseconds(100), pollInMs: 20)
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet()
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let option = try optionId(.erc3009, in: options)
        let signed = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: option))

        // The first answer is lost after the service recorded the confirmation (a 502 hides it): the client
        // asks the status, which shows the confirm was processed, and sends nothing again.
        service.inject(.statusAfterHandling(502), on: .confirm)
        let first = try await client.submitConfirmation(paymentId: id, optionId: option, signed: signed)
        #expect(service.requests(to: .confirm).count == 1)
        #expect(service.requests(to: .status).count == 1)
        #expect(first.status == .processing || first.status == .succeeded)
        let again = try await client.confirmPayment(paymentId: id, optionId: option, signed: signed)
        #expect(again.status == .succeeded)
        #expect(service.confirmationCount(paymentId: id) == 1)

        // Other results for a confirmed payment conflict.
        let url = service.baseURL.appendingPathComponent("v1/gateway/payment/\(id)/confirm")
        let other =
            #"{"optionId":"\#(option)","results":[{"type":"walletRpc","data":["0x\#(String(repeating: "ab", count: 65))"]}]}"#
        let (status, body) = try await rawRequest("POST", url, body: other)
        #expect(status == 409)
        #expect(body.contains("idempotency_conflict"))
    }

    // MARK: - Results and bundles

    @Test("wrong order: the client refuses the bundle; the service answers 422 to swapped results")
    func wrongOrder() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet(nodes: [base: StubNode()])
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let option = try optionId(.permit2, in: options)
        let actions = try await client.requiredActions(paymentId: id, optionId: option)
        #expect(actions.map(\.method) == ["eth_sendTransaction", "eth_signTypedData_v4"])

        let reversed = try await dispatcher.sign(actions: actions.reversed())
        let error = await payError { () async throws(PayError) in
            try await client.confirmPayment(paymentId: id, optionId: option, signed: reversed)
        }
        guard case .signedActionsMismatch(let refusedOption, let reason)? = error else {
            Issue.record("expected a mismatch, got \(String(describing: error))")
            return
        }
        #expect(refusedOption == option)
        #expect(
            reason == #"action[0] differs in method: option "eth_sendTransaction", bundle "eth_signTypedData_v4""#,
            "\(reason)")
        #expect(service.requests(to: .confirm).isEmpty)

        let signed = try await dispatcher.sign(actions: actions)
        let swapped = signed.results.reversed().map { #"{"type":"walletRpc","data":["\#($0)"]}"# }.joined(
            separator: ",")
        let url = service.baseURL.appendingPathComponent("v1/gateway/payment/\(id)/confirm")
        let (status, body) = try await rawRequest(
            "POST", url, body: #"{"optionId":"\#(option)","results":[\#(swapped)]}"#)
        #expect(status == 422)
        #expect(body.contains("results[0] (eth_sendTransaction)"))

        // In order it goes through (no node on the service side: any 32-byte hash is accepted).
        let final = try await client.confirmPayment(paymentId: id, optionId: option, signed: signed)
        #expect(final.status == .succeeded)
    }

    @Test("a signature from another key: the dispatcher refuses it; sent anyway, the service answers 422")
    func wrongSigner() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service)
        let victim = SoftwareKeySigner.generate()
        let impostor = SoftwareKeySigner.generate()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(ImpostorBackend(claimed: victim.address, actual: impostor))
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(victim)])
        let option = try optionId(.erc3009, in: options)
        let actions = try await client.requiredActions(paymentId: id, optionId: option)
        let refused = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: actions) }
        guard case .verificationFailed(let reason)? = refused?.kind else {
            Issue.record("expected .verificationFailed, got \(String(describing: refused))"); return
        }
        #expect(refused?.index == 0)
        #expect(reason.contains(impostor.address.checksummed))

        // A wallet that skips SignerKit and sends the impostor's signature is refused by the service too.
        let params = try #require(try JSONValue(parsing: actions[0].params).arrayValue)
        let typedText = params[1].stringValue ?? params[1].serialized
        let signature = try await impostor.sign(prehash: try TypedData(jsonText: typedText).digest())
        let url = service.baseURL.appendingPathComponent("v1/gateway/payment/\(id)/confirm")
        let (status, body) = try await rawRequest(
            "POST", url,
            body: #"{"optionId":"\#(option)","results":[{"type":"walletRpc","data":["\#(signature.hex)"]}]}"#)
        #expect(status == 422)
        #expect(body.contains("not the option's account"))
    }

    @Test("confirm refuses a bundle made for another option, and options whose actions were not fetched")
    func bundleForAnotherOption() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet()
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let erc3009 = try optionId(.erc3009, in: options)
        let collect = try optionId(.dataCollection, in: options)
        let permit2 = try optionId(.permit2, in: options)
        let signed = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: erc3009))

        let error = await payError { () async throws(PayError) in
            try await client.confirmPayment(paymentId: id, optionId: collect, signed: signed)
        }
        guard case .signedActionsMismatch(let refused, let reason)? = error else {
            Issue.record("expected a mismatch, got \(String(describing: error))"); return
        }
        #expect(refused == collect)
        // Same method, same chain: the reason names the first field that differs, and both values.
        let difference = try #require(
            reason.wholeMatch(of: /action\[0\] differs in params\[1\]\S* (.*): option (.+), bundle (.+)/))
        #expect(difference.output.2 != difference.output.3, "\(reason)")
        let unfetched = await payError { () async throws(PayError) in
            try await client.confirmPayment(paymentId: id, optionId: permit2, signed: signed)
        }
        #expect(unfetched == .actionsNotFetched(optionId: permit2))
        let otherPayment = await payError { () async throws(PayError) in
            try await client.confirmPayment(paymentId: "pay_other", optionId: erc3009, signed: signed)
        }
        #expect(otherPayment == .actionsNotFetched(optionId: erc3009))
        #expect(service.requests(to: .confirm).isEmpty)
        #expect(client.rememberedActions(paymentId: id, optionId: erc3009) == signed.actions)
    }

    @Test("the data-collection option needs data: refused without it, accepted with collectedData")
    func dataCollectionConfirm() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet()
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let optionID = try optionId(.dataCollection, in: options)
        let option = try #require(options.option(optionID))
        let collect = try #require(option.collectData)
        #expect(collect.url?.hasPrefix(service.baseURL.absoluteString + "/ic/\(id)?accounts=") == true)
        #expect(collect.fields.map(\.id) == ["fullName", "dob", "tosConfirmed"])
        #expect(collect.fieldIds.contains("porCountry"))

        let signed = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: optionID))
        let error = await payError { () async throws(PayError) in
            try await client.confirmPayment(paymentId: id, optionId: optionID, signed: signed)
        }
        #expect(error.map(Self.name) == "invalidOption")
        #expect(error?.apiError?.message.contains("data collection") == true)

        let data = CollectedData(fields: [
            .init(id: "fullName", value: "Ada Lovelace"), .init(id: "dob", value: "1815-12-10"),
            .init(id: "tosConfirmed", value: "true"),
        ])
        let final = try await client.confirmPayment(
            paymentId: id, optionId: optionID, signed: signed, collectedData: data)
        #expect(final.status == .succeeded)
        #expect(
            service.requests(to: .confirm).last?.body.contains(
                #""collectedData":{"fields":[{"id":"fullName","value":"Ada Lovelace"}"#) == true)
    }

    @Test("the local service reports failed payments")
    func failedPayment() async throws {
        let service = try startService(processingTime: .milliseconds(50), pollInMs: 10)
        defer { service.stop() }
        let id = service.createPayment(.init(outcome: .failed))
        let client = makeClient(service)
        let (key, dispatcher) = try makeWallet()
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let option = try optionId(.erc3009, in: options)
        let signed = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: option))
        let final = try await client.confirmPayment(paymentId: id, optionId: option, signed: signed)
        #expect(final.status == .failed && final.isFinal && final.info == nil)
    }

    /// The case name of an error, for table-driven checks.
    static func name(_ error: PayError) -> String {
        switch error {
        case .quoteExpired: "quoteExpired"
        case .paymentNotFound: "paymentNotFound"
        case .paymentExpired: "paymentExpired"
        case .invalidOption: "invalidOption"
        case .invalidSignature: "invalidSignature"
        case .routeExpired: "routeExpired"
        case .optionNotFound: "optionNotFound"
        case .rateLimited: "rateLimited"
        case .invalidRequest: "invalidRequest"
        case .invalidAccount: "invalidAccount"
        case .complianceFailed: "complianceFailed"
        case .http: "http"
        case .outcomeUnknown: "outcomeUnknown"
        default: "\(error)"
        }
    }
}
