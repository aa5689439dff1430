import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing
import WalletConnectPay
import WalletConnectPayTesting

/// `confirmPayment(…, maxPollMs:)` ends the confirm by one attempt's time (a request timeout plus the long
/// poll): after a lost answer it asks the status, and it does not wait out a back-off that would end past that.
@Suite("Pay: the confirm is bounded by maxPollMs")
struct PayConfirmDeadlineTests {
    @Test("a confirm lost with a 5xx is asked about, then reported unknown rather than retried past the deadline")
    func confirmBoundedByMaxPoll() async throws {
        let service = try startService()
        defer { service.stop() }
        let clock = ManualClock()
        // A back-off of two hours, past the hour and a second the confirm may take. (The clock never moves in
        // this test; the hour keeps the real HTTP exchanges' deadlines, which are read on it, far away however
        // slow the machine is.)
        let slowRetry = PayRetryPolicy(
            maxRetries: 5, baseDelay: .seconds(7200), maxDelay: .seconds(7200), retryAfterCap: .seconds(7200),
            jitter: 0)
        let client = makeClient(service, retry: slowRetry, requestTimeout: .seconds(3600), clock: clock)
        let (key, dispatcher) = try makeWallet()
        let id = service.createPayment()
        let options = try await client.paymentOptions(paymentId: id, accounts: [baseAccount(key)])
        let option = try optionId(.erc3009, in: options)
        let signed = try await dispatcher.sign(
            actions: try await client.requiredActions(paymentId: id, optionId: option))
        service.inject(.status(500, code: "internal_error", message: "injected"), on: .confirm, times: 10)
        let task = Task { () async -> PayError? in
            await payError { () async throws(PayError) in
                try await client.confirmPayment(paymentId: id, optionId: option, signed: signed, maxPollMs: 1000)
            }
        }
        let error = try await clock.value(of: task)
        guard case .outcomeUnknown(.confirm, let reason)? = error else {
            Issue.record("expected an unknown confirm outcome, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("at the deadline"), "\(reason)")
        #expect(service.requests(to: .confirm).count == 1, "never sent again")
        #expect(service.requests(to: .status).count == 1, "asked what happened first")
    }
}
