import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitHTTPServer
import SignerKitSupport
import Synchronization
import WalletConnectPay

/// A local WalletConnect Pay gateway on 127.0.0.1, for tests, demos and offline development.
///
/// It serves the gateway endpoints with realistic payloads (USDC on Base and other chains):
/// - `erc3009`: one `eth_signTypedData_v4` of an ERC-3009 `ReceiveWithAuthorization` (hex `chainId`,
///   hex quantities);
/// - `permit2`: a `build` action that `fetch` resolves into an ERC-20 `approve` of Permit2
///   (`eth_sendTransaction`) followed by a Permit2 `PermitTransferFrom` signature;
/// - `dataCollection`: like `erc3009`, with `collectData` (a page at `/ic/{id}`, the schema and the field list).
///
/// `confirm` verifies every result against the option's account (signatures are recovered; transaction
/// hashes must exist on ``Configuration/node`` when one is set), so results in the wrong order get 422.
/// Quotes expire (`quote_expired`), confirm is idempotent, and the status goes `processing` →
/// `succeeded` after ``Configuration/processingTime``. ``inject(_:on:times:)`` makes the next answers
/// fail (429 with `Retry-After`, 5xx, dropped connections) to exercise retries.
///
/// Also served: `POST /v1/payments` (merchant side: create a payment), `GET`/`POST /ic/{id}` (the
/// data-collection page) and `GET /health`.
public final class LocalPayService: Sendable {
    /// How the service behaves.
    public struct Configuration: Sendable {
        /// The port (0 picks a free one).
        public var port: UInt16
        /// The merchant shown to wallets.
        public var merchant: MerchantInfo
        /// Who receives the payments.
        public var merchantAddress: Address
        /// A node to check `eth_sendTransaction` hashes against (`nil`: any 32-byte hash is accepted).
        public var node: (any EthereumNode)?
        /// `pollInMs` in status answers.
        public var pollInMs: Int64
        /// How long a confirmed payment stays `processing`.
        public var processingTime: Duration
        /// How long an option's quote is valid.
        public var quoteLifetime: Duration
        /// How long a payment is valid.
        public var paymentLifetime: Duration
        /// Options offered per account, in order, when the payment does not say.
        public var optionKinds: [OptionKind]
        /// Create unknown payments on first use when their id is `pay_` followed by 1–100 of `[A-Za-z0-9_-]`.
        public var autoCreatePayments: Bool
        /// When set, requests need `Api-Key: <this>` or `App-Id` with `Client-Id` (else 401).
        public var requiredApiKey: String?
        /// Accounts refused with 451 `sanctioned_user`.
        public var sanctionedAddresses: Set<Address>

        /// The defaults: a free port, no node, 200 ms polls, 400 ms processing, 5 min quotes, 15 min payments.
        public init(
            port: UInt16 = 0, merchant: MerchantInfo = MerchantInfo(name: "SignerKit Coffee", iconUrl: nil),
            merchantAddress: Address = LocalPayCatalog.merchantAddress,
            node: (any EthereumNode)? = nil, pollInMs: Int64 = 200, processingTime: Duration = .milliseconds(400),
            quoteLifetime: Duration = .seconds(300), paymentLifetime: Duration = .seconds(900),
            optionKinds: [OptionKind] = OptionKind.standard, autoCreatePayments: Bool = false,
            requiredApiKey: String? = nil, sanctionedAddresses: Set<Address> = []
        ) {
            self.port = port
            self.merchant = merchant
            self.merchantAddress = merchantAddress
            self.node = node
            self.pollInMs = pollInMs
            self.processingTime = processingTime
            self.quoteLifetime = quoteLifetime
            self.paymentLifetime = paymentLifetime
            self.optionKinds = optionKinds
            self.autoCreatePayments = autoCreatePayments
            self.requiredApiKey = requiredApiKey
            self.sanctionedAddresses = sanctionedAddresses
        }
    }

    /// The kinds of option the service offers.
    public enum OptionKind: String, Sendable, CaseIterable {
        /// One ERC-3009 `ReceiveWithAuthorization` signature.
        case erc3009
        /// A `build` action: ERC-20 `approve` of Permit2 (a transaction), then a Permit2 signature.
        case permit2
        /// ERC-3009 after data collection.
        case dataCollection
        /// Test double only, hostile: shows the payment amount but asks for an EIP-2612 `Permit` of 2^256−1
        /// with deadline 2^256−1 to a third-party spender.
        case hostileUnlimitedPermit
        /// Test double only, hostile: a Permit2 `PermitTransferFrom` for twice the option's amount.
        case hostilePermit2Overspend
        /// Test double only, hostile: a Permit2 `PermitTransferFrom` of another token than the option's asset.
        case hostileOtherToken
        /// Test double only, hostile: an ERC-3009 authorization whose `from` is another account.
        case hostileOtherPayer
        /// Test double only, hostile: an arbitrary `personal_sign` text.
        case hostilePersonalSign

        /// The honest kinds, offered by default: ``erc3009``, ``permit2``, ``dataCollection``.
        public static let standard: [OptionKind] = [.erc3009, .permit2, .dataCollection]
        /// The hostile kinds (for tests that a wallet refuses them).
        public static let hostile: [OptionKind] = [
            .hostileUnlimitedPermit, .hostilePermit2Overspend, .hostileOtherToken, .hostileOtherPayer,
            .hostilePersonalSign,
        ]
    }

    /// A payment to create.
    public struct PaymentSpec: Sendable {
        /// The id (default: a fresh `pay_…`).
        public var id: String?
        /// The amount in US cents.
        public var amountCents: UInt64
        /// The options per account (default: the configuration's).
        public var optionKinds: [OptionKind]?
        /// The final status after processing: `.succeeded` or `.failed`.
        public var outcome: PaymentStatus
        /// The merchant's reference.
        public var referenceId: String?
        /// When set, the data-collection page refuses every submission with this message (400
        /// `params_validation`, nothing recorded), so its form answers `IC_ERROR` with it.
        public var dataCollectionError: String?

        /// A payment of `amountCents` (default $1.00).
        public init(
            id: String? = nil, amountCents: UInt64 = 100, optionKinds: [OptionKind]? = nil,
            outcome: PaymentStatus = .succeeded, referenceId: String? = nil, dataCollectionError: String? = nil
        ) {
            self.id = id
            self.amountCents = amountCents
            self.optionKinds = optionKinds
            self.outcome = outcome
            self.referenceId = referenceId
            self.dataCollectionError = dataCollectionError
        }
    }

    /// A failure to answer with instead of the real answer.
    public enum Fault: Sendable, Equatable {
        /// This HTTP status with `{"code","message"}` and optionally `Retry-After`.
        case status(Int, code: String? = nil, message: String = "injected failure", retryAfter: String? = nil)
        /// Close the connection without answering.
        case dropConnection
        /// Handle the request, then answer this status instead (a lost answer: the work is done).
        case statusAfterHandling(Int)
    }

    /// One request the service received.
    public struct LoggedRequest: Sendable {
        /// `GET`, `POST`, …
        public let method: String
        /// The raw path.
        public let path: String
        /// The query parameters.
        public let query: [(name: String, value: String)]
        /// The headers (lower-cased names).
        public let headers: [(name: String, value: String)]
        /// The body as text.
        public let body: String
        /// The gateway endpoint, when it was one.
        public let endpoint: PayEndpoint?
        /// The payment id in the path, when there was one.
        public let paymentId: String?

        /// The first header called `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            let lower = name.lowercased()
            return headers.first { $0.name == lower }?.value
        }

        /// The first query parameter called `name`.
        public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
    }

    /// The configuration in use.
    public var configuration: Configuration { core.configuration }
    /// The port it listens on.
    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:<port>`: the API base URL for ``PayClientConfiguration/baseURL``.
    public let baseURL: URL

    private let core: LocalPayCore
    private let server: HTTPServer

    /// Starts the service.
    public init(configuration: Configuration = Configuration()) throws(LoopbackServerError) {
        let core = LocalPayCore(configuration: configuration)
        self.core = core
        let server = try HTTPServer.localService(port: configuration.port) { request in await core.handle(request) }
        guard let url = URL(string: server.baseURLString) else { preconditionFailure("cannot form the loopback URL") }
        self.server = server
        baseURL = url
        core.setBaseURL(server.baseURLString)
    }

    deinit { server.stopWithoutWaiting() }

    /// Stops listening (idempotent): new connections are refused at once; requests in flight finish in
    /// the background. ``shutdown()`` also waits for them.
    public func stop() { server.stopWithoutWaiting() }

    /// Stops listening and returns once requests in flight are over and the port is closed.
    public func shutdown() async { await server.stop() }

    /// Creates a payment and returns its id.
    @discardableResult
    public func createPayment(_ spec: PaymentSpec = PaymentSpec()) -> String { core.createPayment(spec) }

    /// The payment link wallets scan: `https://pay.walletconnect.com/?pid=<id>`.
    public func paymentLink(for paymentId: String) -> String {
        "https://\(PaymentLink.payHost)/?pid=\(PaymentLink.percentEncode(paymentId))"
    }

    /// Makes the next `times` requests to `endpoint` (`nil`: any gateway endpoint) fail with `fault`.
    public func inject(_ fault: Fault, on endpoint: PayEndpoint? = nil, times: Int = 1) {
        core.state.withLock {
            $0.faults.append(LocalPayCore.PendingFault(endpoint: endpoint, fault: fault, remaining: times))
        }
    }

    /// Makes every current quote of the payment stale (confirm then answers `quote_expired`).
    public func expireQuotes(paymentId: String) {
        core.state.withLock { state in
            guard var payment = state.payments[paymentId] else { return }
            for id in payment.options.keys { payment.options[id]?.quoteExpiresAt = Date(timeIntervalSinceNow: -1) }
            state.payments[paymentId] = payment
        }
    }

    /// Expires the payment (gateway calls then answer 410, status answers `expired`).
    public func expirePayment(paymentId: String) {
        core.state.withLock { $0.payments[paymentId]?.expiresAt = Date(timeIntervalSinceNow: -1) }
    }

    /// Cancels the payment as a merchant would.
    public func cancelPayment(paymentId: String) {
        core.state.withLock { $0.payments[paymentId]?.cancelled = true }
    }

    /// Invalidates the routes of the payment's current options (fetch and confirm then answer 409).
    public func expireRoutes(paymentId: String) {
        core.state.withLock { $0.payments[paymentId]?.routesExpired = true }
    }

    /// Records data as if the user had submitted the data-collection page.
    public func submitCollectedData(paymentId: String, _ data: CollectedData) {
        core.state.withLock { $0.payments[paymentId]?.collected = data }
    }

    /// The payment's status now, or `nil` for an unknown payment.
    public func status(of paymentId: String) -> PaymentStatus? {
        core.state.withLock { state in state.payments[paymentId].map { core.statusResponse($0, now: Date()).status } }
    }

    /// How many times `confirm` recorded a confirmation for the payment (0 or 1: confirm is idempotent).
    public func confirmationCount(paymentId: String) -> Int {
        core.state.withLock { $0.payments[paymentId]?.confirmation == nil ? 0 : 1 }
    }

    /// The requests received so far, oldest first (the most recent 5 000 to 10 000).
    public var requests: [LoggedRequest] { core.state.withLock { $0.log } }

    /// The requests received for one endpoint.
    public func requests(to endpoint: PayEndpoint) -> [LoggedRequest] { requests.filter { $0.endpoint == endpoint } }
}

/// The service's state and request handling (shared with the server's handler).
final class LocalPayCore: Sendable {
    struct PendingFault {
        let endpoint: PayEndpoint?
        let fault: LocalPayService.Fault
        var remaining: Int
    }

    struct OptionRecord {
        let id: String
        let kind: LocalPayService.OptionKind
        let account: AccountID
        let address: Address
        let token: LocalPayCatalog.Token
        let value: UInt256
        var quoteExpiresAt: Date
        let offered: [PayAction]
        let actions: [WalletRpcAction]
        let buildData: String?
        var fetched: Bool
        let collectData: CollectData?

        var amount: PayAmount {
            PayAmount(unit: token.unit, value: value.decimalString, display: LocalPayCatalog.display(token))
        }
    }

    struct Confirmation {
        let optionId: String
        let results: [String]
        let confirmedAt: Date
        let txId: String
        let optionAmount: PayAmount
    }

    struct Payment {
        let id: String
        let amountCents: UInt64
        let referenceId: String?
        let kinds: [LocalPayService.OptionKind]
        let outcome: PaymentStatus
        var dataCollectionError: String?
        var expiresAt: Date
        var cancelled = false
        var routesExpired = false
        var options: [String: OptionRecord] = [:]
        var collected: CollectedData?
        var confirmation: Confirmation?
        var buyer: String?

        var amount: PayAmount {
            PayAmount(
                unit: "iso4217/USD", value: String(amountCents),
                display: AmountDisplay(assetSymbol: "USD", assetName: "US Dollar", decimals: 2))
        }
    }

    struct State {
        var payments: [String: Payment] = [:]
        var faults: [PendingFault] = []
        var log: [LocalPayService.LoggedRequest] = []
        var baseURL = ""
    }

    let configuration: LocalPayService.Configuration
    let state = Mutex(State())

    /// Requests kept in the log; the older half is dropped when it is full.
    static let maximumLogLength = 10_000

    init(configuration: LocalPayService.Configuration) {
        self.configuration = configuration
    }

    func setBaseURL(_ url: String) { state.withLock { $0.baseURL = url } }

    func createPayment(_ spec: LocalPayService.PaymentSpec) -> String {
        let id = spec.id ?? "pay_" + Hex.encode((0..<12).map { _ in UInt8.random(in: 0...255) }, prefix: false)
        let payment = Payment(
            id: id, amountCents: spec.amountCents, referenceId: spec.referenceId,
            kinds: spec.optionKinds ?? configuration.optionKinds, outcome: spec.outcome,
            dataCollectionError: spec.dataCollectionError,
            expiresAt: Date(timeIntervalSinceNow: Self.seconds(configuration.paymentLifetime)))
        state.withLock { $0.payments[id] = payment }
        return id
    }

    static func seconds(_ duration: Duration) -> TimeInterval { duration.secondsValue }

    // MARK: - Routing

    func handle(_ request: LoopbackHTTPRequest) async -> LoopbackHTTPResponse {
        let (endpoint, paymentId) = Self.route(request.path)
        let fault = state.withLock { state -> LocalPayService.Fault? in
            if state.log.count >= Self.maximumLogLength { state.log.removeFirst(state.log.count / 2) }
            state.log.append(
                LocalPayService.LoggedRequest(
                    method: request.method, path: request.path, query: request.query, headers: request.headers,
                    body: String(decoding: request.body, as: UTF8.self), endpoint: endpoint, paymentId: paymentId))
            guard let endpoint,
                let index = state.faults.firstIndex(where: {
                    $0.remaining > 0 && ($0.endpoint == nil || $0.endpoint == endpoint)
                })
            else { return nil }
            state.faults[index].remaining -= 1
            let fault = state.faults[index].fault
            if state.faults[index].remaining == 0 { state.faults.remove(at: index) }
            return fault
        }
        switch fault {
        case .dropConnection?:
            return LoopbackHTTPResponse(status: 0, dropConnection: true)
        case .status(let status, let code, let message, let retryAfter)?:
            return Self.error(
                status, code ?? Self.defaultCode(status), message,
                headers: retryAfter.map { [("Retry-After", $0)] } ?? [])
        case .statusAfterHandling(let status)?:
            _ = await answer(request, endpoint: endpoint, paymentId: paymentId)
            return Self.error(status, Self.defaultCode(status), "injected failure after handling")
        case nil:
            return await answer(request, endpoint: endpoint, paymentId: paymentId)
        }
    }

    /// The real answer to a request.
    private func answer(_ request: LoopbackHTTPRequest, endpoint: PayEndpoint?, paymentId: String?) async
        -> LoopbackHTTPResponse
    {
        if request.path == "/health" { return .json(200, #"{"status":"ok"}"#) }
        if request.path.hasPrefix("/ic/") { return dataCollectionPage(request) }
        if request.path == "/v1/payments" {
            guard request.method == "POST" else { return Self.error(405, "invalid_params", "use POST") }
            if let failure = authenticate(request) { return failure }
            return createPaymentRequest(request)
        }
        guard let endpoint, let paymentId else {
            return Self.error(404, "invalid_params", "no such endpoint: \(request.method) \(request.path)")
        }
        let expectedMethod = endpoint == .payment || endpoint == .status ? "GET" : "POST"
        guard request.method == expectedMethod else {
            return Self.error(405, "invalid_params", "\(endpoint) takes \(expectedMethod)")
        }
        if let failure = authenticate(request) { return failure }
        if let version = request.header("WCP-Version"), version != PayClientConfiguration.apiVersion {
            return Self.error(400, "unknown_api_version", "unknown WCP-Version \(version)")
        }
        guard ensurePayment(paymentId) else {
            return Self.notFound(paymentId)
        }
        switch endpoint {
        case .payment: return paymentInfo(paymentId)
        case .options: return options(paymentId, request)
        case .fetch: return fetch(paymentId, request)
        case .confirm: return await confirm(paymentId, request)
        case .status: return await status(paymentId, request)
        }
    }

    /// `/v1/gateway/payment/{id}[/options|/fetch|/confirm|/status]` → endpoint and decoded id.
    static func route(_ path: String) -> (PayEndpoint?, String?) {
        let prefix = "/v1/gateway/payment/"
        guard path.hasPrefix(prefix) else { return (nil, nil) }
        let rest = path.dropFirst(prefix.count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty else { return (nil, nil) }
        let id = String(first).removingPercentEncoding ?? String(first)
        switch parts.count {
        case 1: return (.payment, id)
        case 2:
            switch parts[1] {
            case "options": return (.options, id)
            case "fetch": return (.fetch, id)
            case "confirm": return (.confirm, id)
            case "status": return (.status, id)
            default: return (nil, nil)
            }
        default: return (nil, nil)
        }
    }

    static func error(_ status: Int, _ code: String, _ message: String, headers: [(String, String)] = [])
        -> LoopbackHTTPResponse
    {
        .json(
            status, JSONValue.object(JSONObject(["code": .string(code), "message": .string(message)])).serialized,
            headers: headers)
    }

    /// 404 `payment_not_found` for payment `id`.
    static func notFound(_ id: String) -> LoopbackHTTPResponse {
        error(404, "payment_not_found", "payment \(id) not found")
    }

    /// 410 `payment_expired` for payment `id`.
    static func expired(_ id: String) -> LoopbackHTTPResponse {
        error(410, "payment_expired", "payment \(id) expired")
    }

    /// A payment still waiting for confirmation whose time is up.
    static func hasLapsed(_ payment: Payment, at now: Date) -> Bool {
        payment.confirmation == nil && !payment.cancelled && now >= payment.expiresAt
    }

    static func defaultCode(_ status: Int) -> String {
        switch status {
        case 400: "invalid_params"
        case 401: "unauthorized"
        case 404: "payment_not_found"
        case 409: "invalid_state"
        case 410: "payment_expired"
        case 422: "params_validation"
        case 429: "rate_limited"
        case 451: "sanctioned_user"
        default: "internal_error"
        }
    }

    private func authenticate(_ request: LoopbackHTTPRequest) -> LoopbackHTTPResponse? {
        guard let required = configuration.requiredApiKey else { return nil }
        let key = request.header("Api-Key")
        let app = request.header("App-Id")
        if key != nil && app != nil {
            return Self.error(400, "conflicting_auth_headers", "send Api-Key or App-Id, not both")
        }
        if let key { return key == required ? nil : Self.error(401, "invalid_api_key", "invalid API key") }
        if app != nil {
            return request.header("Client-Id") == nil
                ? Self.error(401, "missing_client_id", "App-Id needs Client-Id") : nil
        }
        return Self.error(401, "missing_auth_headers", "send Api-Key, or App-Id and Client-Id")
    }

    private func ensurePayment(_ id: String) -> Bool {
        if state.withLock({ $0.payments[id] != nil }) { return true }
        guard configuration.autoCreatePayments, Self.isAutoCreatable(id) else { return false }
        state.withLock { state in
            if state.payments[id] == nil {
                state.payments[id] = Payment(
                    id: id, amountCents: 100, referenceId: nil, kinds: configuration.optionKinds, outcome: .succeeded,
                    expiresAt: Date(timeIntervalSinceNow: Self.seconds(configuration.paymentLifetime)))
            }
        }
        return true
    }

    static func isAutoCreatable(_ id: String) -> Bool {
        guard id.hasPrefix("pay_") else { return false }
        let rest = id.utf8.dropFirst(4)
        return (1...100).contains(rest.count)
            && rest.allSatisfy {
                PercentEncoding.isUnreserved($0) && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "~")
            }
    }

    // MARK: - Status

    func statusResponse(_ payment: Payment, now: Date) -> PaymentStatusResponse {
        if let confirmation = payment.confirmation {
            if now >= confirmation.confirmedAt.addingTimeInterval(Self.seconds(configuration.processingTime)) {
                let succeeded = payment.outcome == .succeeded
                return PaymentStatusResponse(
                    status: payment.outcome, isFinal: true, pollInMs: nil,
                    info: succeeded
                        ? PaymentResultInfo(txId: confirmation.txId, optionAmount: confirmation.optionAmount) : nil)
            }
            return PaymentStatusResponse(status: .processing, isFinal: false, pollInMs: configuration.pollInMs)
        }
        if payment.cancelled { return PaymentStatusResponse(status: .cancelled, isFinal: true) }
        if now >= payment.expiresAt { return PaymentStatusResponse(status: .expired, isFinal: true) }
        return PaymentStatusResponse(status: .requiresAction, isFinal: false, pollInMs: configuration.pollInMs)
    }

    private func info(_ payment: Payment, now: Date) -> PaymentInfo {
        PaymentInfo(
            status: statusResponse(payment, now: now).status, amount: payment.amount,
            expiresAt: Int64(payment.expiresAt.timeIntervalSince1970), merchant: configuration.merchant,
            buyer: payment.buyer.map {
                .object(JSONObject(["accountCaip10": .string($0), "accountProviderName": .string("SignerKit")]))
            })
    }

    private func paymentInfo(_ id: String) -> LoopbackHTTPResponse {
        state.withLock { state in
            guard let payment = state.payments[id] else {
                return Self.notFound(id)
            }
            return .json(200, info(payment, now: Date()).json.serialized)
        }
    }

    /// Answers now, or — with `maxPollMs` above 0 — when the status becomes final or that time has passed.
    private func status(_ id: String, _ request: LoopbackHTTPRequest) async -> LoopbackHTTPResponse {
        await longPoll(id, maxPollMs: request.queryValue("maxPollMs").flatMap { Int64($0) } ?? 0)
    }

    private func longPoll(_ id: String, maxPollMs: Int64) async -> LoopbackHTTPResponse {
        let deadline = Date(timeIntervalSinceNow: Double(max(0, min(maxPollMs, 60_000))) / 1000)
        while true {
            let (answer, finalAt) = state.withLock { state -> (PaymentStatusResponse?, Date?) in
                guard let payment = state.payments[id] else { return (nil, nil) }
                let answer = statusResponse(payment, now: Date())
                let finalAt = payment.confirmation.map {
                    $0.confirmedAt.addingTimeInterval(Self.seconds(configuration.processingTime))
                }
                return (answer, finalAt)
            }
            guard let answer else { return Self.notFound(id) }
            let now = Date()
            if answer.isFinal || now >= deadline { return .json(200, answer.json.serialized) }
            let wake = min(deadline, finalAt ?? deadline)
            let wait = max(0.005, wake.timeIntervalSince(now))
            try? await Task.sleep(for: .milliseconds(Int64(wait * 1000) + 1))
        }
    }

    // MARK: - Options

    private func options(_ id: String, _ request: LoopbackHTTPRequest) -> LoopbackHTTPResponse {
        guard let body = try? JSONValue(parsing: request.body), case .object(let object) = body else {
            return Self.error(400, "invalid_params", "the body must be a JSON object")
        }
        guard case .array(let list)? = object["accounts"] else {
            return Self.error(400, "invalid_params", "accounts: expected an array of CAIP-10 account ids")
        }
        guard !list.isEmpty else { return Self.error(400, "invalid_params", "accounts: empty") }
        if let refresh = object["refresh"], refresh != .null, refresh.arrayValue == nil {
            return Self.error(400, "invalid_params", "refresh: expected an array or null")
        }
        var accounts: [AccountID] = []
        for (i, element) in list.enumerated() {
            guard case .string(let text) = element else {
                return Self.error(400, "invalid_params", "accounts[\(i)]: expected a string")
            }
            do { accounts.append(try AccountID(text)) } catch {
                return Self.error(422, "params_validation", "accounts[\(i)]: \(error)")
            }
        }
        for account in accounts {
            if let address = account.ethereumAddress, configuration.sanctionedAddresses.contains(address) {
                return Self.error(451, "sanctioned_user", "account \(account) cannot pay this merchant")
            }
        }
        let includeInfo = request.queryValue("includePaymentInfo") == "true"
        return state.withLock { state -> LoopbackHTTPResponse in
            guard var payment = state.payments[id] else {
                return Self.notFound(id)
            }
            let now = Date()
            if Self.hasLapsed(payment, at: now) { return Self.expired(id) }
            var offered: [PaymentOption] = []
            if payment.confirmation == nil, !payment.cancelled {
                payment.options = [:]
                payment.routesExpired = false
                for (accountIndex, account) in PayAccounts.unique(accounts).enumerated() {
                    guard let address = account.ethereumAddress, let token = LocalPayCatalog.token(on: account.chainID)
                    else {
                        continue
                    }
                    for kind in payment.kinds {
                        let record = makeOption(
                            kind, payment: payment, account: account, address: address, token: token,
                            index: accountIndex,
                            baseURL: state.baseURL, now: now)
                        payment.options[record.id] = record
                        offered.append(
                            PaymentOption(
                                id: record.id, account: account.description, amount: record.amount,
                                etaS: Self.eta(kind),
                                expiresAt: Int64(record.quoteExpiresAt.timeIntervalSince1970), actions: record.offered,
                                collectData: record.collectData))
                    }
                }
                payment.buyer = accounts.first?.description
                state.payments[id] = payment
            }
            let answer = PaymentOptionsResponse(info: includeInfo ? info(payment, now: now) : nil, options: offered)
            return .json(200, answer.json.serialized)
        }
    }

    private static func eta(_ kind: LocalPayService.OptionKind) -> Int64 {
        switch kind {
        case .erc3009: 3
        case .permit2: 12
        case .dataCollection: 5
        case .hostileUnlimitedPermit, .hostilePermit2Overspend, .hostileOtherToken, .hostileOtherPayer,
            .hostilePersonalSign:
            1
        }
    }

    private func makeOption(
        _ kind: LocalPayService.OptionKind, payment: Payment, account: AccountID, address: Address,
        token: LocalPayCatalog.Token, index: Int, baseURL: String, now: Date
    ) -> OptionRecord {
        let id = "opt_\(kind.rawValue)_\(account.chainID.reference)_\(index)"
        let value = UInt256(payment.amountCents).multiplied(by: UInt256(10_000)) ?? .zero
        let quoteExpiresAt = now.addingTimeInterval(Self.seconds(configuration.quoteLifetime))
        let validBefore = UInt64(max(0, quoteExpiresAt.timeIntervalSince1970)) + 600
        let nonce = Bytes32((0..<32).map { _ in UInt8.random(in: 0...255) }) ?? .zero
        switch kind {
        case .erc3009, .dataCollection:
            let typedData = LocalPayCatalog.receiveWithAuthorization(
                token: token, from: address, to: configuration.merchantAddress, value: value, validBefore: validBefore,
                nonce: nonce)
            let action = LocalPayCatalog.signTypedDataAction(chain: token.chain, account: address, typedData: typedData)
            var collect: CollectData?
            if kind == .dataCollection {
                let url =
                    "\(baseURL)/ic/\(PaymentLink.percentEncode(payment.id))?accounts=\(PaymentLink.percentEncode(account.description))"
                collect = CollectData(
                    url: url, schema: try? JSONValue(parsing: LocalPayCatalog.collectSchemaText),
                    fields: LocalPayCatalog.collectFields)
            }
            return OptionRecord(
                id: id, kind: kind, account: account, address: address, token: token, value: value,
                quoteExpiresAt: quoteExpiresAt, offered: [.walletRpc(action)], actions: [action], buildData: nil,
                fetched: true,
                collectData: collect)
        case .permit2:
            let approve = LocalPayCatalog.sendTransactionAction(
                chain: token.chain, from: address, to: token.contract,
                data: LocalPayCatalog.approveCalldata(spender: LocalPayCatalog.permit2, amount: value))
            let permitNonce = UInt256(word: nonce)
            let permit = LocalPayCatalog.permitTransferFrom(
                token: token, amount: value, spender: LocalPayCatalog.settlementContract, nonce: permitNonce,
                deadline: validBefore)
            let sign = LocalPayCatalog.signTypedDataAction(chain: token.chain, account: address, typedData: permit)
            let buildData = "bld_" + Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255) }, prefix: false)
            return OptionRecord(
                id: id, kind: kind, account: account, address: address, token: token, value: value,
                quoteExpiresAt: quoteExpiresAt, offered: [.build(data: buildData)], actions: [approve, sign],
                buildData: buildData, fetched: false, collectData: nil)
        case .hostileUnlimitedPermit, .hostilePermit2Overspend, .hostileOtherToken, .hostileOtherPayer,
            .hostilePersonalSign:
            let action = LocalPayHostileOptions.action(
                kind, token: token, address: address, value: value, deadline: validBefore, nonce: nonce)
            return OptionRecord(
                id: id, kind: kind, account: account, address: address, token: token, value: value,
                quoteExpiresAt: quoteExpiresAt, offered: [.walletRpc(action)], actions: [action], buildData: nil,
                fetched: true, collectData: nil)
        }
    }

    // MARK: - Fetch

    private func fetch(_ id: String, _ request: LoopbackHTTPRequest) -> LoopbackHTTPResponse {
        guard let body = try? JSONValue(parsing: request.body), case .object(let object) = body,
            case .string(let optionId)? = object["optionId"]
        else { return Self.error(400, "invalid_params", "expected {\"optionId\":…,\"data\":…}") }
        // Without "data" (a client that has not seen the options) the option's actions are resolved by id.
        let data = object["data"]?.stringValue
        return state.withLock { state -> LoopbackHTTPResponse in
            guard var payment = state.payments[id] else {
                return Self.notFound(id)
            }
            let now = Date()
            if Self.hasLapsed(payment, at: now) { return Self.expired(id) }
            guard var option = payment.options[optionId] else {
                return Self.error(400, "invalid_params", "unknown option \(optionId)")
            }
            if payment.routesExpired {
                return Self.error(409, "invalid_state", "the route of option \(optionId) expired")
            }
            if let data, option.buildData != data {
                return Self.error(400, "invalid_params", "option \(optionId) has no build action with this data")
            }
            if now >= option.quoteExpiresAt {
                return Self.error(400, "quote_expired", "the quote of option \(optionId) expired")
            }
            option.fetched = true
            payment.options[optionId] = option
            state.payments[id] = payment
            let answer = JSONValue.object(
                JSONObject(["actions": .array(option.actions.map { PayAction.walletRpc($0).json })]))
            return .json(200, answer.serialized)
        }
    }

    // MARK: - Confirm

    private func confirm(_ id: String, _ request: LoopbackHTTPRequest) async -> LoopbackHTTPResponse {
        guard let body = try? JSONValue(parsing: request.body), case .object(let object) = body,
            case .string(let optionId)? = object["optionId"], case .array(let resultList)? = object["results"]
        else { return Self.error(400, "invalid_params", "expected {\"optionId\":…,\"results\":[…]}") }
        var results: [String] = []
        for (i, element) in resultList.enumerated() {
            guard case .object(let result) = element, result["type"]?.stringValue == "walletRpc",
                case .array(let data)? = result["data"], data.count == 1, case .string(let text) = data[0]
            else {
                return Self.error(
                    400, "invalid_params", "results[\(i)]: expected {\"type\":\"walletRpc\",\"data\":[\"0x…\"]}")
            }
            results.append(text)
        }
        var collected: CollectedData?
        if let value = object["collectedData"], value != .null {
            do { collected = try CollectedData(json: value) } catch {
                return Self.error(400, "invalid_params", "collectedData: \(error)")
            }
        }
        let maxPollMs = request.queryValue("maxPollMs").flatMap { Int64($0) } ?? 0

        enum Check {
            case answer(LoopbackHTTPResponse)
            case repeated
            case verify(OptionRecord, CollectedData?)
        }
        let check = state.withLock { state -> Check in
            guard let payment = state.payments[id] else {
                return .answer(Self.notFound(id))
            }
            if let previous = payment.confirmation {
                if previous.optionId == optionId && previous.results == results { return .repeated }
                return .answer(
                    Self.error(409, "idempotency_conflict", "payment \(id) was already confirmed with other results"))
            }
            let now = Date()
            if payment.cancelled { return .answer(Self.error(400, "invalid_state", "payment \(id) was cancelled")) }
            if now >= payment.expiresAt { return .answer(Self.expired(id)) }
            guard let option = payment.options[optionId] else {
                return .answer(Self.error(400, "invalid_params", "unknown option \(optionId)"))
            }
            if payment.routesExpired {
                return .answer(Self.error(409, "invalid_state", "the route of option \(optionId) expired"))
            }
            if now >= option.quoteExpiresAt {
                return .answer(
                    Self.error(400, "quote_expired", "the quote of option \(optionId) expired; fetch options again"))
            }
            guard option.fetched else {
                return .answer(Self.error(400, "invalid_state", "fetch the actions of option \(optionId) first"))
            }
            guard results.count == option.actions.count else {
                return .answer(
                    Self.error(
                        400, "invalid_params",
                        "option \(optionId) has \(option.actions.count) action(s); got \(results.count) result(s)"))
            }
            return .verify(option, collected ?? payment.collected)
        }
        let option: OptionRecord
        switch check {
        case .answer(let response):
            return response
        case .repeated:
            // Idempotent: the same confirmation again answers with the current status.
            return await longPoll(id, maxPollMs: maxPollMs)
        case .verify(let record, let data):
            if record.kind == .dataCollection, let problem = Self.missingData(data) {
                return Self.error(400, "params_validation", "option \(record.id) needs data collection: \(problem)")
            }
            option = record
        }
        for (i, (action, result)) in zip(option.actions, results).enumerated() {
            do {
                try await LocalPayVerifier.verify(
                    result, answers: action, account: option.address, node: configuration.node)
            } catch {
                switch error {
                case .invalid(let text):
                    return Self.error(422, "params_validation", "results[\(i)] (\(action.method)): \(text)")
                case .node(let text):
                    return Self.error(500, "internal_error", "results[\(i)]: cannot check the transaction: \(text)")
                }
            }
        }
        let recorded = state.withLock { state -> LoopbackHTTPResponse? in
            guard var payment = state.payments[id] else {
                return Self.notFound(id)
            }
            if let previous = payment.confirmation {
                if previous.optionId == optionId && previous.results == results { return nil }
                return Self.error(409, "idempotency_conflict", "payment \(id) was already confirmed with other results")
            }
            let txId = Keccak256.hash(Array((id + "|" + optionId + "|" + results.joined(separator: ",")).utf8)).hex
            payment.confirmation = Confirmation(
                optionId: optionId, results: results, confirmedAt: Date(), txId: txId, optionAmount: option.amount)
            payment.buyer = option.account.description
            state.payments[id] = payment
            return nil
        }
        if let recorded { return recorded }
        return await longPoll(id, maxPollMs: maxPollMs)
    }

    /// What is missing from collected data: `fullName`, `dob` (YYYY-MM-DD), `tosConfirmed` = true.
    static func missingData(_ data: CollectedData?) -> String? {
        guard let data else { return "no data was collected (submit the page or send collectedData)" }
        guard let name = data["fullName"], !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            return "fullName is missing"
        }
        guard let dob = data["dob"], dob.count == 10,
            dob.utf8.enumerated().allSatisfy({ i, c in
                i == 4 || i == 7 ? c == UInt8(ascii: "-") : (0x30...0x39).contains(c)
            })
        else { return "dob must be YYYY-MM-DD" }
        guard data["tosConfirmed"] == "true" else { return "tosConfirmed must be true" }
        return nil
    }

    // MARK: - Merchant side and data collection page

    private func createPaymentRequest(_ request: LoopbackHTTPRequest) -> LoopbackHTTPResponse {
        guard let body = try? JSONValue(parsing: request.body), case .object(let object) = body,
            case .string(let reference)? = object["referenceId"], case .object(let amount)? = object["amount"],
            amount["unit"]?.stringValue == "iso4217/USD", let valueText = amount["value"]?.stringValue,
            let cents = UInt64(valueText), cents > 0
        else {
            return Self.error(
                400, "invalid_params",
                "expected {\"referenceId\":…,\"amount\":{\"unit\":\"iso4217/USD\",\"value\":\"<cents>\"}}")
        }
        let id = createPayment(LocalPayService.PaymentSpec(amountCents: cents, referenceId: reference))
        let expiresAt = state.withLock { Int64($0.payments[id]?.expiresAt.timeIntervalSince1970 ?? 0) }
        let answer = JSONValue.object(
            JSONObject([
                "paymentId": .string(id), "status": .string("requires_action"), "expiresAt": .number(String(expiresAt)),
                "isFinal": .bool(false), "pollInMs": .number(String(configuration.pollInMs)),
                "gatewayUrl": .string("https://\(PaymentLink.payHost)/?pid=\(id)"),
            ]))
        return .json(200, answer.serialized)
    }

    /// `GET /ic/{id}`: the hosted form (``LocalPayCollectForm``, honouring `prefill` and `theme`);
    /// `POST /ic/{id}`: records the answers (JSON or form-encoded), or refuses them with the payment's
    /// ``LocalPayService/PaymentSpec/dataCollectionError``.
    private func dataCollectionPage(_ request: LoopbackHTTPRequest) -> LoopbackHTTPResponse {
        let raw = String(request.path.dropFirst("/ic/".count))
        let id = raw.removingPercentEncoding ?? raw
        guard let refusal = state.withLock({ $0.payments[id].map(\.dataCollectionError) }) else {
            return Self.notFound(id)
        }
        if request.method == "POST" {
            if let refusal { return Self.error(400, "params_validation", refusal) }
            let text = String(decoding: request.body, as: UTF8.self)
            var data: CollectedData
            if let json = try? JSONValue(parsing: request.body), let parsed = try? CollectedData(json: json) {
                data = parsed
            } else {
                data = CollectedData(
                    fields: PaymentLink.parameters(Substring(text.replacingOccurrences(of: "+", with: " "))).map {
                        CollectedData.Field(id: $0.name, value: $0.value == "on" ? "true" : $0.value)
                    })
            }
            if let problem = Self.missingData(data) { return Self.error(400, "params_validation", problem) }
            state.withLock { $0.payments[id]?.collected = data }
            return .json(200, #"{"status":"ok"}"#)
        }
        var prefill = JSONObject()
        if let encoded = request.queryValue("prefill"), let bytes = DataCollection.decodeBase64URL(encoded),
            case .object(let object)? = try? JSONValue(parsing: bytes)
        {
            prefill = object
        }
        let page = LocalPayCollectForm.page(
            merchant: configuration.merchant.name, prefill: prefill, dark: request.queryValue("theme") == "dark")
        return LoopbackHTTPResponse(
            status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(page.utf8))
    }

}
