import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing
import WalletConnectPay

/// Behaviour taken from the upstream SDKs (reown yttrium / reown-swift): expiry guard, one re-quote,
/// fetch on a fresh client, trusted data-collection pages.
@Suite("Pay as upstream does it")
struct PayUpstreamTests {
    func signedSteps(_ log: StepLog) -> Int {
        log.all.filter { if case .signed = $0 { return true } else { return false } }.count
    }

    @Test("the expiry guard refuses to sign for an option that expires within the margin; a smaller margin pays")
    func expiryGuard() async throws {
        // Both halves are decided by lifetime against margin, never by how fast the machine runs: a quote of 9 s
        // is inside the default 10 s margin however soon it is checked, and a quote of 300 s is outside a 120 s
        // margin unless the flow takes three minutes.
        let service = try startService(quoteLifetime: .seconds(9))
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: [.erc3009]))
        let (key, dispatcher) = try makeWallet()
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher) { log.append($0) }
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: id, accounts: [baseAccount(key)])
        }
        guard case .expiresTooSoon(let option, let expiresAt)? = error else {
            Issue.record("expected expiresTooSoon, got \(String(describing: error))"); return
        }
        #expect(option == "opt_erc3009_8453_0")
        #expect(Double(expiresAt) < Date().timeIntervalSince1970 + 10)
        #expect(signedSteps(log) == 0)
        #expect(service.requests(to: .confirm).isEmpty)

        // The margin is the client's: 300 s quotes are refused with a 400 s margin and paid with 120 s.
        let longer = try startService(quoteLifetime: .seconds(300))
        defer { longer.stop() }
        func client(margin: Duration) -> PayClient {
            PayClient(
                configuration: PayClientConfiguration(
                    baseURL: longer.baseURL, authentication: .none, retry: fastRetry, expiryMargin: margin))
        }
        let strict = longer.createPayment(.init(optionKinds: [.erc3009]))
        let strictError = await payError { () async throws(PayError) in
            try await PayFlow(client: client(margin: .seconds(400)), dispatcher: dispatcher).pay(
                link: strict, accounts: [baseAccount(key)])
        }
        guard case .expiresTooSoon? = strictError else {
            Issue.record("expected expiresTooSoon, got \(String(describing: strictError))"); return
        }
        #expect(longer.requests(to: .confirm).isEmpty)
        let relaxed = longer.createPayment(.init(optionKinds: [.erc3009]))
        let final = try await PayFlow(client: client(margin: .seconds(120)), dispatcher: dispatcher).pay(
            link: relaxed, accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)
    }

    @Test("quote_expired on confirm: one automatic re-quote with new signatures; a second one is an error")
    func requote() async throws {
        let service = try startService()
        defer { service.stop() }
        let (key, dispatcher) = try makeWallet()
        let id = service.createPayment(.init(optionKinds: [.erc3009]))
        service.inject(.status(400, code: "quote_expired", message: "stale"), on: .confirm)
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher) { log.append($0) }
        let final = try await flow.pay(link: id, accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)
        #expect(service.requests(to: .options).count == 2)
        #expect(service.requests(to: .options).last?.body.contains(#""refresh":["opt_erc3009_8453_0"]"#) == true)
        #expect(service.requests(to: .confirm).count == 2)
        #expect(signedSteps(log) == 2)

        let other = service.createPayment(.init(optionKinds: [.erc3009]))
        service.inject(.status(400, code: "quote_expired", message: "stale"), on: .confirm, times: 2)
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: other, accounts: [baseAccount(key)])
        }
        guard case .quoteExpired? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(service.requests(to: .options).count == 4)
    }

    @Test(
        "a stale option (option_not_found, or 409 on confirm): options refreshed once, the same asset and chain reselected",
        arguments: [(404, "option_not_found"), (409, "invalid_state")])
    func staleOptionIsReselected(status: Int, code: String) async throws {
        let service = try startService()
        defer { service.stop() }
        let (key, dispatcher) = try makeWallet()
        let id = service.createPayment(.init(optionKinds: [.erc3009]))
        service.inject(.status(status, code: code, message: "stale"), on: .confirm)
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher) { log.append($0) }
        let final = try await flow.pay(link: id, accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)
        // A plain refresh (no `refresh` list: the option itself is gone), then the same unit again, signed anew.
        #expect(service.requests(to: .options).count == 2)
        #expect(service.requests(to: .options).last?.body.contains(#""refresh":null"#) == true)
        #expect(service.requests(to: .confirm).count == 2)
        #expect(signedSteps(log) == 2)

        // Stale again after the refresh: the error, once; nothing confirmed.
        let other = service.createPayment(.init(optionKinds: [.erc3009]))
        service.inject(.status(status, code: code, message: "stale"), on: .confirm, times: 2)
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: other, accounts: [baseAccount(key)])
        }
        let name = error.map(PayClientTests.name)
        #expect(name == (status == 409 ? "routeExpired" : "optionNotFound"), "\(String(describing: error))")
        #expect(service.requests(to: .options).count == 4)
        #expect(service.requests(to: .confirm).count == 4)
    }

    @Test("requiredActions on a fresh client fetches the option's actions by id; confirm then works")
    func freshClient() async throws {
        let service = try startService()
        defer { service.stop() }
        let (key, dispatcher) = try makeWallet()
        let id = service.createPayment(.init(optionKinds: [.erc3009]))
        let first = makeClient(service)
        let options = try await first.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let option = try #require(options.options.first).id
        let fresh = makeClient(service)
        let actions = try await fresh.requiredActions(paymentId: id, optionId: option)
        #expect(actions.map(\.method) == ["eth_signTypedData_v4"])
        #expect(service.requests(to: .fetch).last?.body == #"{"optionId":"\#(option)"}"#)
        let final = try await fresh.confirmPayment(
            paymentId: id, optionId: option, signed: try await dispatcher.sign(actions: actions))
        #expect(final.status == .succeeded)
        // A build option is fetched once, however often its actions are asked for.
        let twoStep = service.createPayment(.init(optionKinds: [.permit2]))
        let quoted = try await first.paymentOptions(paymentId: twoStep, accounts: [baseAccount(key)])
        let permit2 = try #require(quoted.options.first).id
        let before = service.requests(to: .fetch).count
        _ = try await first.requiredActions(paymentId: twoStep, optionId: permit2)
        _ = try await first.requiredActions(paymentId: twoStep, optionId: permit2)
        #expect(service.requests(to: .fetch).count == before + 1)
    }

    @Test("data-collection pages: https on WalletConnect hosts; loopback only for a loopback API")
    func trustedPages() throws {
        let production = PayClientConfiguration(authentication: .none)
        let local = PayClientConfiguration(
            baseURL: try #require(URL(string: "http://127.0.0.1:8080")), authentication: .none)
        let cases: [(String, Bool, Bool)] = [
            ("https://pay.walletconnect.com/ic/1", true, true),
            ("https://data-collection.walletconnect.com/ic/1", true, true),
            ("https://walletconnect.com/x", true, true), ("https://secure.reown.com/x", true, true),
            ("http://pay.walletconnect.com/ic/1", false, false),
            ("https://walletconnect.com.evil.net/x", false, false), ("https://evilwalletconnect.com/x", false, false),
            ("https://user@pay.walletconnect.com/x", false, false),
            ("http://127.0.0.1:9/ic/1", false, true), ("https://localhost/ic", false, true),
        ]
        for (text, inProduction, inLocal) in cases {
            let url = try #require(URL(string: text))
            #expect(production.allowsDataCollectionPage(url) == inProduction, "\(text)")
            #expect(local.allowsDataCollectionPage(url) == inLocal, "\(text)")
        }
        let custom = PayClientConfiguration(authentication: .none, dataCollectionHosts: ["kyc.example.com"])
        #expect(custom.allowsDataCollectionPage(try #require(URL(string: "https://kyc.example.com/f"))))
        #expect(!custom.allowsDataCollectionPage(try #require(URL(string: "https://pay.walletconnect.com/f"))))
    }

    @Test("a page on an untrusted host: refused before it is shown, nothing fetched, signed or confirmed")
    func untrustedPage() async throws {
        let key = SoftwareKeySigner.generate()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(key)
        let standIn = try await FaultServer.start()
        defer { standIn.stop() }
        let action =
            #"{"type":"walletRpc","data":{"chain_id":"eip155:8453","method":"personal_sign","params":["0x6869","\#(key.address.checksummed)"]}}"#
        let options = #"""
            {"info":null,"options":[{"id":"opt_1","account":"eip155:8453:\#(key.address.checksummed)","amount":{"unit":"iso4217/USD","value":"100"},"etaS":3,"expiresAt":null,"actions":[\#(action)],"collectData":{"url":"https://walletconnect.com.evil.net/ic?x=1","schema":{"required":["fullName"]},"fields":[]}}]}
            """#
        try await standIn.add(FaultRule(.respond, pathSuffix: "/options", status: 200, body: options))
        let client = PayClient(
            configuration: PayClientConfiguration(baseURL: standIn.url, authentication: .none, retry: .none))
        let log = StepLog()
        var flow = PayFlow(
            client: client, dispatcher: dispatcher,
            collectedData: CollectedData(fields: [.init(id: "fullName", value: "Ada Lovelace")])
        ) { log.append($0) }
        // The stand-in's personal_sign is only there to make the option listable; the page is the point.
        flow.optionCheck.allowsUnrecognizedActions = true
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: "pay_1", accounts: [AccountID(chainID: base, address: key.address)])
        }
        #expect(error == .untrustedDataCollectionPage(optionId: "opt_1", host: "walletconnect.com.evil.net"))
        #expect(try await standIn.requests().map(\.pathOnly) == ["/v1/gateway/payment/pay_1/options"])
        #expect(signedSteps(log) == 0)
    }
}
