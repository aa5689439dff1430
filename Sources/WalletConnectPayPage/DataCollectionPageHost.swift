import EthereumPrimitives
import Foundation
import SignerKitHTTPServer
import Synchronization
import WalletConnectPay

/// Shows WalletConnect Pay's data-collection form on a desktop, as a wallet's web view would: a small page
/// on 127.0.0.1 frames the form (`collectData.url`, as `DataCollection` builds it) and reports the
/// form's `IC_COMPLETE` or `IC_ERROR` message back to the waiting flow.
///
/// ```swift
/// let host = try DataCollectionPageHost()
/// flow.dataCollectionHandler = host.handler(timeout: .seconds(600)) { page in print("open \(page)") }
/// ```
///
/// Each page has its own path, `/pay/<token>` with 32 random bytes: only the browser it was handed to
/// can post its verdict. A request must carry exactly one `Host` header naming this listener
/// (`127.0.0.1:PORT` or `localhost:PORT`; a DNS-rebinding page is refused), and a verdict must come with
/// the page's own `Origin`. The page forwards only messages from the form's frame and origin, and
/// `DataCollectionMessage/accept(_:origin:formURL:)` checks them again. Waits end at the caller's
/// deadline (`CallerDeadline` bounds it further) on the host's clock.
public final class DataCollectionPageHost: Sendable {
    /// The bound port.
    public let port: UInt16
    /// `http://127.0.0.1:PORT`.
    public let origin: String
    private let server: HTTPServer
    private let router: PageRouter
    private let clock: any SignerClock

    /// Listens on 127.0.0.1:`port` (0: a free port); deadlines are read on `clock`.
    ///
    /// - Throws: `PayError/transport(_:)` when the port cannot be bound.
    public init(port: UInt16 = 0, clock: any SignerClock = SystemClock()) throws(PayError) {
        let router = PageRouter()
        do {
            server = try HTTPServer(host: "127.0.0.1", port: port) { request in router.handle(request) }
        } catch {
            throw .transport("data-collection page: cannot listen on 127.0.0.1: \(error)")
        }
        self.port = server.port
        origin = "http://127.0.0.1:\(server.port)"
        router.setPort(server.port)
        self.router = router
        self.clock = clock
    }

    deinit { server.stopWithoutWaiting() }

    /// Closes the port; pages still waiting end as `PayFlow/DataCollectionOutcome/timedOut` at their deadline.
    public func stop() async { await server.stop() }

    /// Serves a page framing `formURL`, hands its address to `open` (a browser, a printed line, a test's
    /// headless browser), and returns once the form reports: `IC_COMPLETE` as
    /// `PayFlow/DataCollectionOutcome/submittedOnPage`, `IC_ERROR` as `PayFlow/DataCollectionOutcome/failed(_:)`
    /// with its text; `PayFlow/DataCollectionOutcome/timedOut` at `deadline` (an instant of the host's
    /// clock, or the caller's deadline when earlier), `PayFlow/DataCollectionOutcome/declined` when the task
    /// is cancelled. A form URL that is not http(s) with a host gets `.failed` at once.
    public func present(
        _ formURL: URL, optionId: String, until deadline: ContinuousClock.Instant,
        open: @Sendable (URL) async -> Void
    ) async -> PayFlow.DataCollectionOutcome {
        guard let scheme = formURL.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let formOrigin = DataCollection.origin(of: formURL)
        else { return .failed("the data-collection page has no http(s) address") }
        let token = Self.randomHex(32)
        let slot = PageOutcomeSlot()
        router.add(
            PageSession(token: token, formURL: formURL, formOrigin: formOrigin, optionId: optionId, slot: slot))
        defer { router.remove(token) }
        guard let page = URL(string: "\(origin)/pay/\(token)") else { return .failed("cannot form the page URL") }
        await open(page)
        return await slot.value(until: CallerDeadline.bounding(deadline, on: clock), on: clock)
    }

    /// A `PayFlow/dataCollectionHandler` that shows each option's page with
    /// ``present(_:optionId:until:open:)``, `timeout` from the moment it is called. An option without a page
    /// is `PayFlow/DataCollectionOutcome/declined`.
    public func handler(timeout: Duration, open: @escaping @Sendable (URL) async -> Void)
        -> @Sendable (PaymentOption, URL?) async -> PayFlow.DataCollectionOutcome
    {
        { option, url in
            guard let url else { return .declined }
            return await self.present(url, optionId: option.id, until: self.clock.now.advanced(by: timeout), open: open)
        }
    }

    /// `count` random bytes in hex (the system's secure generator).
    static func randomHex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }, prefix: false)
    }
}

/// One shown page: its form and the outcome its caller awaits.
struct PageSession: Sendable {
    let token: String
    let formURL: URL
    let formOrigin: String
    let optionId: String
    let slot: PageOutcomeSlot
}
