import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Synchronization
import Testing
import WalletConnectPay
import WalletConnectPayPage
import WalletConnectPayTesting

/// The loopback page host, over raw HTTP: what it serves and which verdicts it takes. Waits are on a manual
/// clock, so nothing here depends on elapsed time.
@Suite("Pay data-collection page host")
struct DataCollectionPageHostTests {
    let form = testURL("http://127.0.0.1:9/ic/pay_1?prefill=e30&theme=dark")

    /// Shows `form` on `host` in a task; returns the task and the page URL it handed out.
    func show(_ host: DataCollectionPageHost, clock: ManualClock) async -> (
        Task<PayFlow.DataCollectionOutcome, Never>, URL
    ) {
        let pages = Arrivals<URL>()
        let form = self.form
        let task = Task {
            await host.present(form, optionId: "opt_1", until: clock.now.advanced(by: .seconds(60))) {
                pages.append($0)
            }
        }
        let page = (try? await pages.atLeast(1).first) ?? URL(fileURLWithPath: "/")
        return (task, page)
    }

    /// One raw request to the host; the status and body.
    func exchange(_ host: DataCollectionPageHost, _ text: String) async throws -> (
        status: Int, head: String, body: String
    ) {
        let port = host.port
        return try await RawClient.offPool {
            let client = try RawClient(port: port)
            _ = client.send(text)
            guard let response = client.readResponse() else { throw HeadlessChromium.Failure("no answer") }
            return response
        }
    }

    func verdict(_ host: DataCollectionPageHost, path: String, origin: String?, body: String, hostHeader: String? = nil)
        async throws -> (status: Int, head: String, body: String)
    {
        var text = "POST \(path)/message HTTP/1.1\r\nHost: \(hostHeader ?? "127.0.0.1:\(host.port)")\r\n"
        if let origin { text += "Origin: \(origin)\r\n" }
        text +=
            "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        return try await exchange(host, text)
    }

    static func body(origin: String, data: String) -> String {
        JSONValue.object(JSONObject(["origin": .string(origin), "data": .string(data)])).serialized
    }

    @Test("the page frames the form, allows only its origin as a frame and carries a fresh token in its path")
    func page() async throws {
        let clock = ManualClock()
        let host = try DataCollectionPageHost(clock: clock)
        let (task, page) = await show(host, clock: clock)
        #expect(page.absoluteString.hasPrefix("http://127.0.0.1:\(host.port)/pay/"))
        #expect(page.lastPathComponent.count == 64)
        let answer = try await exchange(
            host, "GET \(page.path) HTTP/1.1\r\nHost: 127.0.0.1:\(host.port)\r\nConnection: close\r\n\r\n")
        #expect(answer.status == 200)
        #expect(answer.body.contains("document.createElement('iframe')"))
        #expect(answer.body.contains("frame.src = \"\(form.absoluteString)\";"))
        #expect(answer.head.lowercased().contains("frame-src http://127.0.0.1:9;"))
        #expect(answer.head.lowercased().contains("x-frame-options: deny"))
        clock.advance(by: .seconds(61))
        #expect(await task.value == .timedOut)
    }

    @Test(
        "wrong Host, wrong Origin, unknown token: refused; wrong origin or type in the message: ignored; IC_ERROR ends it"
    )
    func verdicts() async throws {
        let clock = ManualClock()
        let host = try DataCollectionPageHost(clock: clock)
        let (task, page) = await show(host, clock: clock)
        let own = "http://127.0.0.1:\(host.port)"
        let complete = Self.body(origin: "http://127.0.0.1:9", data: #"{"type":"IC_COMPLETE"}"#)
        #expect(
            try await verdict(host, path: page.path, origin: own, body: complete, hostHeader: "evil.example").status
                == 400)
        #expect(try await verdict(host, path: page.path, origin: nil, body: complete).status == 403)
        #expect(try await verdict(host, path: page.path, origin: "http://evil.example", body: complete).status == 403)
        #expect(
            try await verdict(host, path: "/pay/" + String(repeating: "0", count: 64), origin: own, body: complete)
                .status == 404)
        let wrongOrigin = Self.body(origin: own, data: #"{"type":"IC_COMPLETE"}"#)
        #expect(
            try await verdict(host, path: page.path, origin: own, body: wrongOrigin).body == #"{"outcome":"ignored"}"#)
        let unknown = Self.body(origin: "http://127.0.0.1:9", data: #"{"type":"IC_RESIZE","height":300}"#)
        #expect(try await verdict(host, path: page.path, origin: own, body: unknown).body == #"{"outcome":"ignored"}"#)
        let error = Self.body(
            origin: "http://127.0.0.1:9", data: #"{"type":"IC_ERROR","error":"sanctions check failed"}"#)
        #expect(try await verdict(host, path: page.path, origin: own, body: error).body == #"{"outcome":"error"}"#)
        #expect(await task.value == .failed("sanctions check failed"))
        // The session is over: its page is gone.
        #expect(try await verdict(host, path: page.path, origin: own, body: complete).status == 404)
    }

    @Test(
        "the flow: IC_ERROR ends the payment with its text and nothing fetched or confirmed; no answer ends it at the deadline"
    )
    func flowOutcomes() async throws {
        let service = try startService()
        defer { service.stop() }
        let (key, dispatcher) = try makeWallet()
        var flow = PayFlow(client: makeClient(service), dispatcher: dispatcher)
        let long = "Travel Rule: " + String(repeating: "x", count: 300)
        flow.dataCollectionHandler = { _, _ in .failed(long) }
        let id = service.createPayment(.init(optionKinds: [.dataCollection]))
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: id, accounts: [baseAccount(key)])
        }
        #expect(
            error == .dataCollectionFailed(optionId: "opt_dataCollection_8453_0", message: EchoedText.abbreviated(long))
        )
        #expect(service.requests(to: .fetch).isEmpty && service.requests(to: .confirm).isEmpty)

        let clock = ManualClock()
        let host = try DataCollectionPageHost(clock: clock)
        flow.dataCollectionHandler = host.handler(timeout: .seconds(30)) { _ in clock.advance(by: .seconds(31)) }
        let late = await payError { () async throws(PayError) in
            try await flow.pay(
                link: service.createPayment(.init(optionKinds: [.dataCollection])), accounts: [baseAccount(key)])
        }
        guard case .timeout(let text)? = late else { Issue.record("got \(String(describing: late))"); return }
        #expect(text.contains("data-collection page"))
        #expect(service.confirmationCount(paymentId: id) == 0)
    }
}
