import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitCurl
import SignerKitSupport
import Synchronization

/// A client of the WalletConnect Pay gateway API.
///
/// ```swift
/// let client = PayClient(configuration: .init(authentication: .appId("…", clientId: "…")))
/// let answer = try await client.paymentOptions(paymentId: id, accounts: accounts)
/// let actions = try await client.requiredActions(paymentId: id, optionId: answer.options[0].id)
/// let signed = try await dispatcher.sign(actions: actions)
/// let final = try await client.confirmPayment(paymentId: id, optionId: answer.options[0].id, signed: signed)
/// ```
///
/// The client remembers the options it received and the wallet RPC actions it resolved for each
/// option; ``confirmPayment(paymentId:optionId:signed:collectedData:maxPollMs:onStatus:)`` accepts
/// only a `SignedActions` that answers exactly those actions, in order. Requests go through an
/// `HTTPTransport` (libcurl by default) and are retried on 429 (honouring `Retry-After`, capped), 5xx
/// and transport errors per ``PayClientConfiguration/retry`` — except that a `confirm` whose outcome is
/// unknown is never re-sent before the payment's status has been asked (see docs/PAY.md, "Transport rules").
/// Every request goes through one `RetryingHTTPCall`; its waits and the status polls run on the client's clock.
public final class PayClient: Sendable {
    private struct OptionKey: Hashable {
        let paymentId: String
        let optionId: String
    }

    private struct State {
        var options: [OptionKey: PaymentOption] = [:]
        var actions: [OptionKey: [WalletRpcAction]] = [:]
        /// Per payment: its `expiresAt` and payment-level `collectData`, from the last options answer.
        var expiresAt: [String: Int64] = [:]
        var collectData: [String: CollectData] = [:]
        /// Payments this client has an options answer for.
        var quoted: Set<String> = []
    }

    /// The configuration in use.
    public let configuration: PayClientConfiguration

    private let transport: PayTransport
    private let state = Mutex(State())
    /// Where every deadline and every wait (retries, status polls) is read.
    let clock: any SignerClock

    /// A client sending through `transport` (libcurl by default) and waiting on `clock` (the system's).
    public init(
        configuration: PayClientConfiguration, transport: any HTTPTransport = CurlHTTPTransport.shared,
        clock: any SignerClock = SystemClock()
    ) {
        self.configuration = configuration
        self.clock = clock
        self.transport = PayTransport(configuration: configuration, transport: transport, clock: clock)
    }

    // MARK: - Payment and options

    /// `GET /v1/gateway/payment/{id}`: what the payment is for, to show before asking for accounts.
    public func payment(paymentId: String) async throws(PayError) -> PaymentInfo {
        let json = try await transport.send("GET", endpoint: .payment, paymentId: paymentId, suffix: "")
        return try PaymentInfo(json: json, path: "payment")
    }

    /// `POST /v1/gateway/payment/{id}/options?includePaymentInfo=…` with `{"accounts":[…],"refresh":…}`.
    ///
    /// The options are remembered (replacing earlier ones of this payment), and for options made only
    /// of wallet RPC actions, so are their actions.
    public func paymentOptions(
        paymentId: String, accounts: [AccountID], includePaymentInfo: Bool = true, refresh: [String]? = nil
    ) async throws(PayError) -> PaymentOptionsResponse {
        guard !accounts.isEmpty else { throw .invalidAccounts("the list is empty") }
        let body = JSONValue.object(
            JSONObject([
                "accounts": .array(PayAccounts.wire(accounts).map { .string($0) }),
                "refresh": refresh.map { .array($0.map { .string($0) }) } ?? .null,
            ]))
        let json = try await transport.send(
            "POST", endpoint: .options, paymentId: paymentId, suffix: "/options",
            query: [("includePaymentInfo", includePaymentInfo ? "true" : "false")], body: body)
        var answer = try PaymentOptionsResponse(json: json)
        answer.paymentId = paymentId
        state.withLock { state in
            for key in state.options.keys where key.paymentId == paymentId {
                state.options[key] = nil
                state.actions[key] = nil
            }
            state.quoted.insert(paymentId)
            state.expiresAt[paymentId] = answer.info?.expiresAt
            state.collectData[paymentId] = answer.collectData
            for option in answer.options {
                let key = OptionKey(paymentId: paymentId, optionId: option.id)
                state.options[key] = option
                if !option.needsFetch { state.actions[key] = option.actions.compactMap(\.walletRpcAction) }
            }
        }
        return answer
    }

    /// The option last received for this payment.
    public func option(paymentId: String, optionId: String) -> PaymentOption? {
        state.withLock { $0.options[OptionKey(paymentId: paymentId, optionId: optionId)] }
    }

    // MARK: - Actions

    /// `POST /v1/gateway/payment/{id}/fetch` with `{"optionId","data"}`: resolves one `build` action.
    ///
    /// - Throws: ``PayError/invalidResponse(_:)`` when the answer holds another `build` action.
    public func fetch(paymentId: String, optionId: String, data: String) async throws(PayError) -> [WalletRpcAction] {
        try await fetch(paymentId: paymentId, optionId: optionId, data: Optional(data))
    }

    /// `POST …/fetch` with `{"optionId"}` and, when given, `"data"`.
    private func fetch(paymentId: String, optionId: String, data: String?) async throws(PayError) -> [WalletRpcAction] {
        var request = JSONObject(["optionId": .string(optionId)])
        if let data { request["data"] = .string(data) }
        let body = JSONValue.object(request)
        let json = try await transport.send(
            "POST", endpoint: .fetch, paymentId: paymentId, suffix: "/fetch", body: body)
        return try Self.fetchedActions(json)
    }

    /// The wallet RPC actions of a `POST …/fetch` answer, in order (a `build` action there is refused).
    package static func fetchedActions(_ json: JSONValue) throws(PayError) -> [WalletRpcAction] {
        let object = try PayJSON.object(json, "fetch response")
        var actions: [WalletRpcAction] = []
        for (i, element) in try PayJSON.array(object["actions"], "actions").enumerated() {
            guard case .walletRpc(let action) = try PayAction(json: element, path: "actions[\(i)]") else {
                throw .invalidResponse("actions[\(i)]: fetch returned a build action")
            }
            actions.append(action)
        }
        return actions
    }

    /// The wallet RPC actions of an option, in order: its `walletRpc` actions as given and its `build`
    /// actions resolved with ``fetch(paymentId:optionId:data:)`` — once: the fetch is committal, so an option
    /// whose actions are remembered is not fetched again. On a client that has not seen the option (a fresh
    /// client), `POST …/fetch` with the option id alone returns them. The result is remembered for
    /// ``confirmPayment(paymentId:optionId:signed:collectedData:maxPollMs:onStatus:)``.
    ///
    /// - Throws: ``PayError/unknownOption(_:)`` when this client has options for the payment and not this one.
    public func requiredActions(paymentId: String, optionId: String) async throws(PayError) -> [WalletRpcAction] {
        let key = OptionKey(paymentId: paymentId, optionId: optionId)
        let (cached, remembered, quoted) = state.withLock {
            ($0.options[key], $0.actions[key], $0.quoted.contains(paymentId))
        }
        if let remembered { return remembered }
        if cached == nil && quoted { throw .unknownOption(optionId) }
        var actions: [WalletRpcAction] = []
        if let option = cached {
            for action in option.actions {
                switch action {
                case .walletRpc(let rpc): actions.append(rpc)
                case .build(let data):
                    actions += try await fetch(paymentId: paymentId, optionId: optionId, data: Optional(data))
                }
            }
        } else {
            actions = try await fetch(paymentId: paymentId, optionId: optionId, data: nil)
        }
        guard !actions.isEmpty else { throw .invalidResponse("option \(optionId) has no actions") }
        state.withLock { $0.actions[key] = actions }
        return actions
    }

    /// The local expiry guard: ``PayError/expiresTooSoon(optionId:expiresAt:)`` when the payment (as of the
    /// last options answer) or the option expires within ``PayClientConfiguration/expiryMargin`` of `now`.
    public func checkExpiry(paymentId: String, optionId: String, now: Date = Date()) throws(PayError) {
        let key = OptionKey(paymentId: paymentId, optionId: optionId)
        let (payment, option) = state.withLock { ($0.expiresAt[paymentId], $0.options[key]?.expiresAt) }
        let margin = configuration.expiryMargin.secondsValue
        for expiresAt in [payment, option].compactMap({ $0 })
        where Double(expiresAt) < now.timeIntervalSince1970 + margin {
            throw .expiresTooSoon(optionId: optionId, expiresAt: expiresAt)
        }
    }

    /// The actions remembered for an option (from the options answer or ``requiredActions(paymentId:optionId:)``).
    public func rememberedActions(paymentId: String, optionId: String) -> [WalletRpcAction]? {
        state.withLock { $0.actions[OptionKey(paymentId: paymentId, optionId: optionId)] }
    }

    // MARK: - Confirm and status

    /// Confirms the option with its signed actions, then polls `GET …/status` every `pollInMs` (1 s when absent)
    /// until the status is final, and returns that final status.
    ///
    /// - Parameters:
    ///   - paymentId: the payment.
    ///   - optionId: the option whose actions the bundle answers.
    ///   - signed: the dispatcher's bundle; it must answer exactly the option's remembered actions, in order.
    ///   - collectedData: the field-list answers, for options that collect data without a page; only the
    ///     fields the option (or payment) asks for are sent.
    ///   - maxPollMs: sent as `maxPollMs` (the server may hold each answer that long); when above 0 it is
    ///     also the client's deadline for a final status, which bounds status requests in flight too, and the
    ///     confirm itself (attempts, the status asked after a lost answer, back-offs) ends within a request
    ///     timeout plus `maxPollMs`.
    ///     `nil` sends nothing and waits without a deadline.
    ///   - onStatus: called with the confirm answer and each status answer.
    /// - Throws: ``PayError/actionsNotFetched(optionId:)``, ``PayError/signedActionsMismatch(optionId:reason:)``
    ///   before any request; API errors; ``PayError/pollingTimedOut(lastStatus:)``.
    public func confirmPayment(
        paymentId: String, optionId: String, signed: SignedActions, collectedData: CollectedData? = nil,
        maxPollMs: Int64? = nil, onStatus: (@Sendable (PaymentStatusResponse) -> Void)? = nil
    ) async throws(PayError) -> PaymentStatusResponse {
        let start = clock.now
        // The confirm (its attempts, the status asked after a lost answer, the waits between) ends by the time
        // one attempt may take: a request timeout plus the server's long poll.
        let confirmDeadline = maxPollMs.flatMap {
            $0 > 0 ? start.advanced(by: configuration.requestTimeout + .milliseconds($0)) : nil
        }
        let first = try await submitConfirmation(
            paymentId: paymentId, optionId: optionId, signed: signed, collectedData: collectedData,
            maxPollMs: maxPollMs, until: confirmDeadline)
        onStatus?(first)
        return try await waitForFinalStatus(
            paymentId: paymentId, from: first, maxPollMs: maxPollMs, startedAt: start, onStatus: onStatus)
    }

    /// `POST /v1/gateway/payment/{id}/confirm?maxPollMs=N` with `{"optionId","results":[…],"collectedData"?}`,
    /// once, without polling. Checks the bundle first, like ``confirmPayment(paymentId:optionId:signed:collectedData:maxPollMs:onStatus:)``.
    public func submitConfirmation(
        paymentId: String, optionId: String, signed: SignedActions, collectedData: CollectedData? = nil,
        maxPollMs: Int64? = nil
    ) async throws(PayError) -> PaymentStatusResponse {
        try await submitConfirmation(
            paymentId: paymentId, optionId: optionId, signed: signed, collectedData: collectedData,
            maxPollMs: maxPollMs, until: nil)
    }

    /// ``submitConfirmation(paymentId:optionId:signed:collectedData:maxPollMs:)`` with every attempt, status
    /// request and wait bounded by `deadline`: past it, a confirm whose outcome is still unknown is reported as
    /// such (``PayError/outcomeUnknown(endpoint:reason:)``), never sent again.
    func submitConfirmation(
        paymentId: String, optionId: String, signed: SignedActions, collectedData: CollectedData?,
        maxPollMs: Int64?, until deadline: ContinuousClock.Instant?
    ) async throws(PayError) -> PaymentStatusResponse {
        let key = OptionKey(paymentId: paymentId, optionId: optionId)
        guard let expected = state.withLock({ $0.actions[key] }) else { throw .actionsNotFetched(optionId: optionId) }
        guard signed.answers(expected) else {
            throw .signedActionsMismatch(
                optionId: optionId, reason: Self.mismatch(expected: expected, signed: signed.actions))
        }
        var body = JSONObject([
            "optionId": .string(optionId),
            "results": .array(
                signed.results.map {
                    .object(JSONObject(["type": .string("walletRpc"), "data": .array([.string($0)])]))
                }),
        ])
        if let collectedData = requested(collectedData, key: key) { body["collectedData"] = collectedData.json }
        let poll = max(0, maxPollMs ?? 0)
        var attempt = 0
        while true {
            do {
                let json = try await transport.send(
                    "POST", endpoint: .confirm, paymentId: paymentId, suffix: "/confirm",
                    query: maxPollMs.map { [("maxPollMs", String(max(0, $0)))] } ?? [], body: .object(body),
                    longPoll: .milliseconds(poll), until: deadline)
                return try PaymentStatusResponse(json: json)
            } catch .outcomeUnknown(.confirm, let reason) {
                // The confirm may have been processed: ask before anything else, never re-send blindly.
                let status: PaymentStatusResponse
                do { status = try await paymentStatus(paymentId: paymentId, maxPollMs: nil, until: deadline) } catch {
                    throw .outcomeUnknown(endpoint: .confirm, reason: "\(reason); asking the status failed: \(error)")
                }
                if status.status != .requiresAction { return status }
                // Not processed: the same results again are the same authorization (the service dedups it).
                guard attempt < configuration.retry.maxRetries else {
                    throw .outcomeUnknown(endpoint: .confirm, reason: "\(reason); the payment still requires action")
                }
                let waited: Bool
                do { waited = try await transport.http.waitBeforeRetry(attempt, deadline: deadline) } catch {
                    throw .cancelled
                }
                guard waited else {
                    throw .outcomeUnknown(
                        endpoint: .confirm, reason: "\(reason); the payment still requires action at the deadline")
                }
                attempt += 1
            }
        }
    }

    /// Only the answers the option (or the payment) asks for: its field ids and schema properties.
    private func requested(_ data: CollectedData?, key: OptionKey) -> CollectedData? {
        guard let data else { return nil }
        let collect = state.withLock { $0.options[key]?.collectData ?? $0.collectData[key.paymentId] }
        guard let collect else { return data }
        let wanted = Set(collect.fieldIds)
        return CollectedData(fields: data.fields.filter { wanted.contains($0.id) })
    }

    /// `GET /v1/gateway/payment/{id}/status?maxPollMs=N`.
    public func paymentStatus(paymentId: String, maxPollMs: Int64? = nil) async throws(PayError)
        -> PaymentStatusResponse
    {
        try await paymentStatus(paymentId: paymentId, maxPollMs: maxPollMs, until: nil)
    }

    /// `GET …/status`, every attempt and wait bounded by `deadline`.
    private func paymentStatus(paymentId: String, maxPollMs: Int64?, until deadline: ContinuousClock.Instant?)
        async throws(PayError) -> PaymentStatusResponse
    {
        let poll = max(0, maxPollMs ?? 0)
        let json = try await transport.send(
            "GET", endpoint: .status, paymentId: paymentId, suffix: "/status",
            query: maxPollMs.map { [("maxPollMs", String(max(0, $0)))] } ?? [], longPoll: .milliseconds(poll),
            until: deadline)
        return try PaymentStatusResponse(json: json)
    }

    /// Polls the status after `from` until it is final: waits `pollInMs` (1000 when absent) between requests,
    /// on the client's clock. With `maxPollMs` above 0 the whole wait (counted from `startedAt`, an instant of
    /// that clock) is bounded by it.
    public func waitForFinalStatus(
        paymentId: String, from current: PaymentStatusResponse, maxPollMs: Int64? = nil,
        startedAt: ContinuousClock.Instant = .now, onStatus: (@Sendable (PaymentStatusResponse) -> Void)? = nil
    ) async throws(PayError) -> PaymentStatusResponse {
        var current = current
        let deadline = maxPollMs.flatMap { $0 > 0 ? startedAt.advanced(by: .milliseconds($0)) : nil }
        while !current.isFinal {
            var wake = clock.now.advanced(by: .milliseconds(max(0, current.pollInMs ?? 1000)))
            if let deadline {
                guard clock.now < deadline else { throw .pollingTimedOut(lastStatus: current.status) }
                wake = min(wake, deadline)
            }
            do { try await clock.sleep(until: wake) } catch { throw .cancelled }
            var poll = maxPollMs
            if let deadline, let requested = maxPollMs {
                let left = clock.now.duration(to: deadline)
                guard left > .zero else { throw .pollingTimedOut(lastStatus: current.status) }
                poll = min(requested, max(1, left.millisecondsRoundedUp))
            }
            do {
                current = try await paymentStatus(paymentId: paymentId, maxPollMs: poll, until: deadline)
            } catch .timeout(let text) {
                // The deadline bounds the request in flight too: past it, the last status stands.
                if let deadline, clock.now >= deadline { throw .pollingTimedOut(lastStatus: current.status) }
                throw .timeout(text)
            }
            onStatus?(current)
        }
        return current
    }

    /// Why `signed` is not the expected bundle: the count or the first differing action.
    static func mismatch(expected: [WalletRpcAction], signed: [WalletRpcAction]) -> String {
        guard expected.count == signed.count else {
            return "the option has \(expected.count) action(s), the bundle answers \(signed.count)"
        }
        for (i, (a, b)) in zip(expected, signed).enumerated() where a != b {
            return ActionDifference.describe(index: i, option: a, bundle: b)
        }
        return "the bundle answers other actions"
    }
}
