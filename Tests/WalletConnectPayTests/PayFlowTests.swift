import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing
import WalletConnectPay
import WalletConnectPayTesting

/// `PayFlow` end to end against the local service.
@Suite("Pay flow")
struct PayFlowTests {
    @Test("a payment link is paid with the first option the wallet can complete; every step is reported")
    func firstCompletableOption() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(amountCents: 150, optionKinds: [.permit2, .dataCollection, .erc3009]))
        let (key, dispatcher) = try makeWallet()
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher) { log.append($0) }
        let final = try await flow.pay(link: service.paymentLink(for: id), accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)

        var skipped: [String: String] = [:]
        var selected: String?
        var kinds: [String] = []
        for step in log.all {
            switch step {
            case .paymentId(let seen): #expect(seen == id); kinds.append("paymentId")
            case .options(let answer):
                #expect(answer.info?.merchant.name == "SignerKit Coffee")
                #expect(answer.paymentId == id)
                #expect(answer.options.count == 3)
                kinds.append("options")
            case .optionSkipped(let option, let reason): skipped[option.id] = reason; kinds.append("skipped")
            case .optionSelected(let option): selected = option.id; kinds.append("selected")
            case .dataCollection: kinds.append("dataCollection")
            case .actions(_, let actions): #expect(actions.count == 1); kinds.append("actions")
            case .preview(_, let previews): #expect(previews.map(\.kind) == [.erc3009Receive]); kinds.append("preview")
            case .signed(let signed): #expect(signed.results.count == 1); kinds.append("signed")
            case .status: kinds.append("status")
            case .finished(let status): #expect(status == final); kinds.append("finished")
            }
        }
        #expect(selected == "opt_erc3009_8453_0")
        // Decided from the options answer: the build option is not fetched (the fetch is committal).
        #expect(skipped["opt_permit2_8453_0"]?.contains("committal fetch") == true)
        #expect(service.requests(to: .fetch).isEmpty)
        #expect(skipped["opt_dataCollection_8453_0"]?.contains("data collection") == true)
        #expect(kinds.first == "paymentId" && kinds.last == "finished")
        #expect(kinds.firstIndex(of: "selected")! < kinds.firstIndex(of: "signed")!)
        #expect(service.requests(to: .confirm).count == 1)

        // Each step prints as a short readable line (a preview: one line per action), not a dump.
        let lines = log.all.map(\.description)
        for line in lines { #expect(line.count < 400 && !line.contains("PaymentOption("), "\(line)") }
        #expect(lines.first == "payment \"\(id)\"")
        #expect(
            lines.contains {
                $0.hasPrefix("options: \"SignerKit Coffee\" asks 1.50 USD") && $0.hasSuffix("; 3 options")
            })
        #expect(lines.contains("option \"opt_erc3009_8453_0\": 1 action (eth_signTypedData_v4 on eip155:8453)"))
        #expect(lines.contains("signed 1 action, every result verified"))
        #expect(lines.last?.hasPrefix("finished: succeeded (transaction 0x") == true, "\(lines)")
        #expect(PreviewWarning.unlimitedAmount.description == "unlimited amount: an unlimited allowance or transfer")
    }

    @Test("an explicit option that cannot be completed is an error, not a fallback")
    func explicitOption() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment()
        let (key, dispatcher) = try makeWallet()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher)
        let link = service.paymentLink(for: id)
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: link, accounts: [baseAccount(key)], optionId: "opt_permit2_8453_0")
        }
        guard case .optionNotCompletable(let option, let reason)? = error else {
            Issue.record("expected optionNotCompletable, got \(String(describing: error))")
            return
        }
        #expect(option == "opt_permit2_8453_0")
        #expect(reason.contains("eth_sendTransaction"))
        let unknown = await payError { () async throws(PayError) in
            try await flow.pay(link: link, accounts: [baseAccount(key)], optionId: "opt_nope")
        }
        #expect(unknown == .unknownOption("opt_nope"))
        let badLink = await payError { () async throws(PayError) in
            try await flow.pay(link: "", accounts: [baseAccount(key)])
        }
        #expect(badLink == .invalidPaymentLink(.empty))
        #expect(service.requests(to: .confirm).isEmpty)
    }

    @Test("no key for the accounts: no option can be completed")
    func noSigner() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: [.erc3009]))
        let (_, dispatcher) = try makeWallet()
        let stranger = SoftwareKeySigner.generate()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher)
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: id, accounts: [baseAccount(stranger)])
        }
        guard case .noCompletableOption(let reasons)? = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect(reasons.count == 1)
        #expect(reasons[0].contains("no signer for \(stranger.address.checksummed)"))
    }

    @Test("the two-step option (approve transaction, then Permit2 signature) with a wallet node")
    func twoStepWithStubNode() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: [.permit2]))
        let node = StubNode()
        let (key, dispatcher) = try makeWallet(nodes: [base: node])
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher, broadcastChains: [base]) {
            log.append($0)
        }
        let final = try await flow.pay(
            link: "wc:abc@2?relay-protocol=irn&pay=\(PaymentLink.percentEncode(service.paymentLink(for: id)))",
            accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)
        #expect(node.transactions.count == 1)
        let actions = log.all.compactMap { step -> [WalletRpcAction]? in
            if case .actions(_, let actions) = step { return actions }
            return nil
        }.first
        #expect(actions?.map(\.method) == ["eth_sendTransaction", "eth_signTypedData_v4"])
        let signed = log.all.compactMap { step -> SignedActions? in
            if case .signed(let signed) = step { return signed }
            return nil
        }.first
        #expect(signed?.results.first == Keccak256.hash(node.transactions[0]).hex)
        #expect(service.requests(to: .fetch).count == 1)
    }

    @Test("the two-step option against a real local EVM: the service finds the approve transaction on the node")
    func twoStepWithLocalEVM() async throws {
        let key = SoftwareKeySigner.generate()
        let evm = try await LocalEVM.start(fund: [key.address], chainId: 8453)
        defer { evm.stop() }
        let node = JSONRPCClient(url: evm.url)
        let service = try startService(node: node)
        defer { service.stop() }
        let id = service.createPayment(.init(amountCents: 1234, optionKinds: [.permit2]))
        let dispatcher = RpcDispatcher(nodes: [base: node])
        try dispatcher.register(key)
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher, broadcastChains: [base]) {
            log.append($0)
        }
        let final = try await flow.pay(link: service.paymentLink(for: id), accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)
        #expect(final.info?.optionAmount.value == "12340000")

        let signed = try #require(
            log.all.compactMap { step -> SignedActions? in
                if case .signed(let signed) = step { return signed }
                return nil
            }.first)
        let hash = try Bytes32(hex: signed.results[0])
        let receipt = try #require(try await node.transactionReceipt(hash))
        #expect(receipt.succeeded)
        #expect(receipt.from == key.address)
        #expect(receipt.to == LocalPayCatalog.token(on: base)?.contract)
        let transaction = try #require(try await node.transactionByHash(hash))
        let approve = LocalPayCatalog.approveCalldata(spender: LocalPayCatalog.permit2, amount: UInt256(12_340_000))
        #expect(transaction["input"]?.stringValue == Hex.encode(approve))

        // A hash the node does not know is refused with 422.
        let other = service.createPayment(.init(optionKinds: [.permit2]))
        let client = makeClient(service)
        let options = try await client.paymentOptions(paymentId: other, accounts: [baseAccount(key)])
        let option = try optionId(.permit2, in: options)
        let actions = try await client.requiredActions(paymentId: other, optionId: option)
        let stubbed = RpcDispatcher(nodes: [base: StubNode()])
        try stubbed.register(key)
        let unbroadcast = try await stubbed.sign(actions: actions)
        let error = await payError { () async throws(PayError) in
            try await client.confirmPayment(paymentId: other, optionId: option, signed: unbroadcast)
        }
        guard case .invalidSignature(let body)? = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect(body.message.contains("not known to the node"))
    }

    @Test("data collection: the page URL carries prefill and theme; collected data goes with confirm")
    func dataCollectionWithData() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: [.dataCollection]))
        let (key, dispatcher) = try makeWallet()
        let log = StepLog()
        var flow = PayFlow(
            client: makeClient(service), dispatcher: dispatcher,
            collectedData: CollectedData(fields: [
                .init(id: "fullName", value: "Ada Lovelace"), .init(id: "dob", value: "1815-12-10"),
                .init(id: "tosConfirmed", value: "true"), .init(id: "favouriteColour", value: "green"),
            ])
        ) { log.append($0) }
        flow.theme = .dark
        flow.themeVariables = ##"{"accent":"#123456"}"##
        let final = try await flow.pay(
            link: "yourwallet://walletconnectpay?paymentId=\(id)", accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)

        let url = try #require(
            log.all.compactMap { step -> URL? in
                if case .dataCollection(_, let url) = step { return url }
                return nil
            }.first)
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(items.map(\.name) == ["accounts", "prefill", "theme", "themeVariables"])
        #expect(items[0].value == baseAccount(key).description)
        let encoded = try #require(items[1].value)
        let prefill = try JSONValue(parsing: try #require(DataCollection.decodeBase64URL(encoded)))
        #expect(prefill.serialized == #"{"fullName":"Ada Lovelace","dob":"1815-12-10","tosConfirmed":true}"#)
        #expect(items[2].value == "dark")
        #expect(items[3].value == ##"{"accent":"#123456"}"##)
        // The page shows the prefilled values.
        let (status, page) = try await rawRequest("GET", url)
        #expect(status == 200)
        #expect(page.contains("value=\"Ada Lovelace\""))
        #expect(service.requests(to: .confirm).first?.body.contains("collectedData") == true)
        // Confirm carries only the fields the option asks for.
        #expect(service.requests(to: .confirm).first?.body.contains("favouriteColour") == false)
    }

    @Test("data collection in a webview: the page is submitted, then the actions are fetched and signed")
    func dataCollectionOnPage() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: [.dataCollection]))
        let (key, dispatcher) = try makeWallet()
        var flow = PayFlow(client: makeClient(service), dispatcher: dispatcher)
        flow.dataCollectionHandler = { _, url in
            guard let url else { return .declined }
            let form = "fullName=Grace+Hopper&dob=1906-12-09&tosConfirmed=on"
            let answer = try? await rawRequest(
                "POST", url, body: form, contentType: "application/x-www-form-urlencoded")
            return answer?.status == 200 ? .submittedOnPage : .declined
        }
        let final = try await flow.pay(link: service.paymentLink(for: id), accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)
        let confirm = try #require(service.requests(to: .confirm).first)
        #expect(!confirm.body.contains("collectedData"))

        var declining = PayFlow(client: makeClient(service), dispatcher: dispatcher)
        declining.dataCollectionHandler = { _, _ in .declined }
        let other = service.createPayment(.init(optionKinds: [.dataCollection]))
        let error = await payError { () async throws(PayError) in
            try await declining.pay(link: other, accounts: [baseAccount(key)])
        }
        guard case .dataCollectionRequired(let option, let url)? = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect(option == "opt_dataCollection_8453_0")
        #expect(url?.contains("/ic/\(other)") == true)
    }

    @Test("a paid payment offers no options")
    func alreadyPaid() async throws {
        let service = try startService(processingTime: .milliseconds(10))
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: [.erc3009]))
        let (key, dispatcher) = try makeWallet()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher)
        #expect(try await flow.pay(link: id, accounts: [baseAccount(key)]).status == .succeeded)
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: id, accounts: [baseAccount(key)])
        }
        #expect(error == .noCompletableOption(["the payment is succeeded"]))
    }

    @Test("merchant side: POST /v1/payments creates a payment the flow can pay")
    func merchantCreatesPayment() async throws {
        let service = try startService()
        defer { service.stop() }
        let (status, body) = try await rawRequest(
            "POST", service.baseURL.appendingPathComponent("v1/payments"),
            body: #"{"referenceId":"ORDER-1","amount":{"unit":"iso4217/USD","value":"499"}}"#)
        #expect(status == 200)
        let created = try JSONValue(parsing: body)
        let link = try #require(created["gatewayUrl"]?.stringValue)
        #expect(created["status"]?.stringValue == "requires_action")
        let (key, dispatcher) = try makeWallet()
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher) { log.append($0) }
        let final = try await flow.pay(link: link, accounts: [baseAccount(key)])
        #expect(final.info?.optionAmount.value == "4990000")
    }
}
