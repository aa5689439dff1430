import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Synchronization
import Testing
import WalletConnectPay
import WalletConnectPayPage
import WalletConnectPayTesting

/// The data-collection step as a user on a desktop takes it: headless Chromium opens the loopback page,
/// the local service's hosted form loads in its iframe, the test fills it in and submits it, and the form's
/// `IC_COMPLETE` (or `IC_ERROR`) reaches the flow through the page. The page waits on a manual clock: a
/// browser driver that fails moves it past the deadline, so the flow ends at once with the driver's reason.
///
/// Locally the suite is skipped when `/usr/bin/chromium` is missing; with `CI=true` a missing browser fails.
@Suite(
    "Pay data-collection page in Chromium", .serialized,
    .enabled(
        if: HeadlessChromium.isAvailable || HeadlessChromium.isCI, "chromium not installed (apt-get install chromium)"))
struct PayDataCollectionBrowserTests {
    /// Fills the form in the page it is handed and records what it saw.
    final class FormDriver: Sendable {
        let chromium: HeadlessChromium
        let formPrefix: String
        let clock: ManualClock
        let failures = Mutex<[String]>([])
        let seen = Mutex<[String: String]>([:])

        init(chromium: HeadlessChromium, formPrefix: String, clock: ManualClock) {
            self.chromium = chromium
            self.formPrefix = formPrefix
            self.clock = clock
        }

        /// The page opener for ``DataCollectionPageHost``: drives the page, or gives the wait up on failure.
        func open(_ page: URL) async {
            do { try await drive(page) } catch {
                failures.withLock { $0.append("\(error)\n\(chromium.log)") }
                clock.advance(by: .seconds(3600))
            }
        }

        private func drive(_ page: URL) async throws {
            let tab = try await chromium.openTab(page.absoluteString)
            _ = try await chromium.waitFor(
                "document.getElementById('status').dataset.outcome === 'waiting'", session: tab)
            let form = try await chromium.isolatedWorld(inFrameWithURLPrefix: formPrefix, session: tab)
            _ = try await chromium.waitFor("document.getElementById('submit') !== null", session: tab, context: form)
            let prefilled = try await chromium.evaluate(
                "document.getElementById('field-fullName').value", session: tab, context: form)
            seen.withLock { $0["prefilled"] = prefilled.stringValue ?? "" }
            // Forgeries the page must not relay: a message from the page's own window, not the form's frame.
            _ = try await chromium.evaluate(
                "window.postMessage({type:'IC_COMPLETE'}, '*'); window.postMessage('{\"type\":\"IC_COMPLETE\"}', '*'); 'sent'",
                session: tab)
            _ = try await chromium.evaluate(
                """
                document.getElementById('field-dob').value = '1906-12-09';
                document.getElementById('field-tosConfirmed').checked = true;
                document.getElementById('submit').click(); 'submitted'
                """, session: tab, context: form)
            let formState = try await chromium.waitFor(
                "['complete', 'error'].includes(document.getElementById('result').dataset.state) ? "
                    + "document.getElementById('result').dataset.state : ''",
                session: tab, context: form)
            seen.withLock { $0["form"] = formState }
            let pageState = try await chromium.waitFor(
                "['complete', 'error', 'closed'].includes(document.getElementById('status').dataset.outcome) ? "
                    + "document.getElementById('status').dataset.outcome : ''",
                session: tab)
            seen.withLock { $0["page"] = pageState }
        }
    }

    func launch() throws -> HeadlessChromium? {
        guard HeadlessChromium.isAvailable else {
            Issue.record("CI=true but \(HeadlessChromium.executablePath) is missing: apt-get install -y chromium")
            return nil
        }
        return try HeadlessChromium()
    }

    /// What one payment through the page left: the flow's outcome, what the driver saw, and the service.
    struct PageRun {
        let result: Result<PaymentStatusResponse, PayError>
        let driver: FormDriver
        let service: LocalPayService
        let paymentId: String
    }

    /// Pays a payment whose only option collects data, through the page in Chromium, the form's answers
    /// refused with `refusal` when given; `nil` when Chromium is missing (an issue is recorded on CI).
    func payThroughPage(refusal: String? = nil) async throws -> PageRun? {
        guard let chromium = try launch() else { return nil }
        let (key, dispatcher) = try makeWallet()
        let clock = ManualClock()
        let host = try DataCollectionPageHost(clock: clock)
        // Nothing after the service's start throws: the caller stops it.
        let service = try startService()
        let driver = FormDriver(chromium: chromium, formPrefix: service.baseURL.absoluteString + "/ic/", clock: clock)
        var flow = PayFlow(client: makeClient(service), dispatcher: dispatcher)
        flow.collectedData = CollectedData(fields: [.init(id: "fullName", value: "Grace Hopper")])
        flow.dataCollectionHandler = host.handler(timeout: .seconds(600)) { await driver.open($0) }
        let id = service.createPayment(.init(optionKinds: [.dataCollection], dataCollectionError: refusal))
        let result: Result<PaymentStatusResponse, PayError>
        do throws(PayError) {
            result = .success(try await flow.pay(link: service.paymentLink(for: id), accounts: [baseAccount(key)]))
        } catch {
            result = .failure(error)
        }
        await chromium.close()
        await host.stop()
        #expect(driver.failures.withLock { $0 }.isEmpty, "\(driver.failures.withLock { $0 })")
        return PageRun(result: result, driver: driver, service: service, paymentId: id)
    }

    @Test(
        "the form is filled and submitted in the browser; IC_COMPLETE continues the flow; confirm has no collectedData")
    func completeInBrowser() async throws {
        guard let run = try await payThroughPage() else { return }
        let service = run.service
        defer { service.stop() }
        #expect(try run.result.get().status == .succeeded)
        #expect(
            run.driver.seen.withLock { $0 } == ["prefilled": "Grace Hopper", "form": "complete", "page": "complete"])
        let submitted = try #require(service.requests.first { $0.method == "POST" && $0.path.hasPrefix("/ic/") })
        #expect(submitted.body.contains(#""1906-12-09""#))
        let confirm = try #require(service.requests(to: .confirm).first)
        #expect(!confirm.body.contains("collectedData"))
        #expect(service.confirmationCount(paymentId: run.paymentId) == 1)
    }

    @Test("the service refuses the answers, the form posts IC_ERROR: the payment ends with its text, nothing confirmed")
    func errorInBrowser() async throws {
        let refusal = "The Travel Rule check failed: the name does not match the account holder"
        guard let run = try await payThroughPage(refusal: refusal) else { return }
        let service = run.service
        defer { service.stop() }
        #expect(run.result == .failure(.dataCollectionFailed(optionId: "opt_dataCollection_8453_0", message: refusal)))
        #expect(run.driver.seen.withLock { $0 } == ["prefilled": "Grace Hopper", "form": "error", "page": "error"])
        #expect(service.requests(to: .fetch).isEmpty && service.requests(to: .confirm).isEmpty)
        #expect(service.confirmationCount(paymentId: run.paymentId) == 0)
    }
}
