import EthereumPrimitives
import Foundation
import SignerKit

/// The whole wallet side of a Pay payment: link → options → (data collection) → actions → signatures
/// → confirm → final status, with every step reported to ``onStep``.
///
/// ```swift
/// let flow = PayFlow(client: client, dispatcher: dispatcher, broadcastChains: [base]) { step in print(step) }
/// let final = try await flow.pay(link: scanned, accounts: PayAccounts.accounts(for: key.address))
/// final.status == .succeeded
/// ```
///
/// Without an option id the flow decides from the options answer alone, without fetching: the first
/// option whose listed actions it can complete (every method is one SignerKit signs, the dispatcher has
/// a backend for the account, chain and method, `eth_sendTransaction` only on ``broadcastChains``, data
/// collection only when ``collectedData`` or ``dataCollectionHandler`` is set); only when there is none,
/// the first option with `build` actions whose account has a signer. The committal `POST …/fetch` then
/// happens once, for that option, and its actions must be completable too (no fallback afterwards).
/// Skipped options are reported with the reason. Before signing, the local expiry guard refuses a
/// payment or option that expires within ``PayClientConfiguration/expiryMargin``, and ``optionCheck``
/// refuses an option whose actions do more than it shows (reported as a skip during selection); a `quote_expired`
/// answer to `confirm` gets one automatic re-quote (fresh options for that option, new signatures).
public struct PayFlow: Sendable {
    /// One observable step.
    public enum Step: Sendable {
        /// The payment id taken from the link.
        case paymentId(String)
        /// The options answer (merchant, amount, options).
        case options(PaymentOptionsResponse)
        /// An option the flow cannot complete, and why.
        case optionSkipped(PaymentOption, reason: String)
        /// The option the flow goes on with.
        case optionSelected(PaymentOption)
        /// The option needs data collection; the page to show (with prefill and theme), when it has one.
        case dataCollection(PaymentOption, url: URL?)
        /// The wallet RPC actions to sign, in order.
        case actions(PaymentOption, [WalletRpcAction])
        /// What each action really does, shown before it is signed (checked against the option by
        /// ``optionCheck``).
        case preview(PaymentOption, [SigningPreview])
        /// The dispatcher's results, in action order.
        case signed(SignedActions)
        /// The confirm answer, then each status answer.
        case status(PaymentStatusResponse)
        /// The final status.
        case finished(PaymentStatusResponse)
    }

    /// What happened on the data-collection page.
    public enum DataCollectionOutcome: Sendable, Equatable {
        /// The user submitted the page (the page sent the data itself).
        case submittedOnPage
        /// The wallet collected the answers itself; they go with `confirm`.
        case collected(CollectedData)
        /// The user declined (or the wait was cancelled).
        case declined
        /// The page reported an error (`IC_ERROR`) with this text; the flow ends with
        /// ``PayError/dataCollectionFailed(optionId:message:)``.
        case failed(String)
        /// The page gave no answer before the caller's deadline; the flow ends with ``PayError/timeout(_:)``.
        case timedOut
    }

    /// The API client.
    public let client: PayClient
    /// Signs the actions.
    public let dispatcher: RpcDispatcher
    /// Chains on which the dispatcher has a node, so `eth_sendTransaction` can be broadcast.
    public var broadcastChains: Set<ChainID>
    /// Answers for data collection: sent with `confirm`, and the merchant's fields among them prefill the page.
    public var collectedData: CollectedData?
    /// Shows the data-collection page and reports the outcome (a wallet's webview).
    public var dataCollectionHandler: (@Sendable (PaymentOption, URL?) async -> DataCollectionOutcome)?
    /// The page's theme.
    public var theme: DataCollection.Theme?
    /// The page's theme variables (verbatim).
    public var themeVariables: String?
    /// Long-poll time and client deadline for the final status (see ``PayClient/confirmPayment(paymentId:optionId:signed:collectedData:maxPollMs:onStatus:)``).
    public var maxPollMs: Int64?
    /// The check that every action does only what the option shows (asset, amount, payer, chain,
    /// validity); an option that fails it is skipped by auto-selection and refused when chosen.
    public var optionCheck = PayOptionCheck()
    /// Called with each step, in order.
    public var onStep: @Sendable (Step) -> Void

    /// A flow over `client` and `dispatcher`.
    public init(
        client: PayClient, dispatcher: RpcDispatcher, broadcastChains: Set<ChainID> = [],
        collectedData: CollectedData? = nil,
        maxPollMs: Int64? = nil, onStep: @escaping @Sendable (Step) -> Void = { _ in }
    ) {
        self.client = client
        self.dispatcher = dispatcher
        self.broadcastChains = broadcastChains
        self.collectedData = collectedData
        self.maxPollMs = maxPollMs
        self.onStep = onStep
    }

    /// Pays the payment behind `link` (a payment link, a bare id or a wallet deep link) from one of
    /// `accounts`, with `optionId` or the first option that can be completed; returns the final status.
    ///
    /// - Throws: ``PayError`` — link, account and option problems before anything is signed; signing
    ///   failures as ``PayError/signing(_:)``; API errors; ``PayError/pollingTimedOut(lastStatus:)``.
    public func pay(link: String, accounts: [AccountID], optionId: String? = nil) async throws(PayError)
        -> PaymentStatusResponse
    {
        let paymentId: String
        do { paymentId = try PaymentLink.paymentId(fromLinkOrDeepLink: link) } catch {
            throw .invalidPaymentLink(error)
        }
        guard !accounts.isEmpty else { throw .invalidAccounts("the list is empty") }
        do { try PaymentLink.validatePaymentId(paymentId) } catch { throw .invalidPaymentLink(error) }
        onStep(.paymentId(paymentId))
        let answer = try await client.paymentOptions(paymentId: paymentId, accounts: accounts)
        onStep(.options(answer))
        let option = try select(from: answer, optionId: optionId)
        onStep(.optionSelected(option))
        let confirmData = try await collectData(for: option)
        return try await complete(
            option, paymentId: paymentId, accounts: accounts, confirmData: confirmData, requoted: false)
    }

    /// The option to pay with, decided from the options answer alone (no fetch); see the type's documentation.
    private func select(from answer: PaymentOptionsResponse, optionId: String?) throws(PayError) -> PaymentOption {
        let options = answer.options.map { option -> PaymentOption in
            var option = option
            if option.collectData == nil { option.collectData = answer.collectData }
            return option
        }
        if let optionId {
            guard let option = options.first(where: { $0.id == optionId }) else { throw .unknownOption(optionId) }
            if let problem = problem(with: option) { throw .optionNotCompletable(optionId: option.id, reason: problem) }
            return option
        }
        var reasons: [String] = []
        var deferred: [PaymentOption] = []
        var chosen: PaymentOption?
        for option in options {
            if option.needsFetch {
                deferred.append(option)
                continue
            }
            if let problem = problem(with: option) {
                onStep(.optionSkipped(option, reason: problem))
                reasons.append("\(option.id): \(problem)")
                continue
            }
            chosen = option
            break
        }
        for option in deferred {
            if chosen != nil {
                onStep(
                    .optionSkipped(
                        option,
                        reason:
                            "its actions are known only after a committal fetch; an option with listed actions is taken"
                    ))
                continue
            }
            if let problem = problem(with: option) {
                onStep(.optionSkipped(option, reason: problem))
                reasons.append("\(option.id): \(problem)")
                continue
            }
            chosen = option
        }
        if let chosen { return chosen }
        if options.isEmpty, let status = answer.info?.status, status != .requiresAction {
            reasons.append("the payment is \(status)")
        }
        throw .noCompletableOption(reasons)
    }

    /// Why this wallet cannot complete `option` as listed (before any fetch), or `nil`.
    private func problem(with option: PaymentOption) -> String? {
        if option.needsFetch {
            guard let account = option.accountID, account.chainID.isEIP155, let address = account.ethereumAddress
            else { return "the option's account \(EchoedText.abbreviated(option.account)) is not an eip155 account" }
            let signs = RpcMethod.allCases.contains {
                dispatcher.backend(for: address, chain: account.chainID, method: $0) != nil
            }
            if !signs { return "no signer for \(address.checksummed) on \(account.chainID)" }
        }
        if let problem = problem(with: option.actions.compactMap(\.walletRpcAction)) { return problem }
        if !option.needsFetch, let problem = previewProblem(option, option.actions.compactMap(\.walletRpcAction)) {
            return problem
        }
        if option.needsDataCollection, collectedData == nil, dataCollectionHandler == nil {
            return "needs data collection (no collected data supplied)"
        }
        return nil
    }

    /// Shows the data-collection page (a trusted https page only) and returns the answers to send with
    /// `confirm`; `nil` when the option collects nothing or the page took the answers.
    private func collectData(for option: PaymentOption) async throws(PayError) -> CollectedData? {
        guard option.needsDataCollection, let collect = option.collectData else { return nil }
        var url: URL?
        if let page = collect.url {
            guard let parsed = URL(string: page), parsed.host != nil,
                client.configuration.allowsDataCollectionPage(parsed)
            else {
                let host = URL(string: page)?.host ?? page
                throw .untrustedDataCollectionPage(optionId: option.id, host: EchoedText.abbreviated(host))
            }
            url = DataCollection.url(for: collect, prefill: prefill(), theme: theme, themeVariables: themeVariables)
        }
        onStep(.dataCollection(option, url: url))
        guard let dataCollectionHandler else { return collectedData }
        switch await dataCollectionHandler(option, url) {
        case .submittedOnPage: return nil
        case .collected(let data): return data
        case .declined:
            if Task.isCancelled { throw .cancelled }
            throw .dataCollectionRequired(optionId: option.id, url: url?.absoluteString)
        case .failed(let message):
            throw .dataCollectionFailed(optionId: option.id, message: EchoedText.abbreviated(message))
        case .timedOut:
            throw .timeout("option \(option.id): the data-collection page gave no answer before the deadline")
        }
    }

    /// Resolves (one fetch for `build` actions), guards expiry, signs and confirms one option. Once per
    /// payment: on `quote_expired` from confirm it re-quotes the option; when the option went stale
    /// (`option_not_found`, or a route expiry from confirm — both refusals, so nothing was paid) it refreshes
    /// the options and reselects the one paying the same asset on the same chain.
    private func complete(
        _ option: PaymentOption, paymentId: String, accounts: [AccountID], confirmData: CollectedData?, requoted: Bool
    ) async throws(PayError) -> PaymentStatusResponse {
        do {
            return try await attempt(
                option, paymentId: paymentId, accounts: accounts, confirmData: confirmData, requoted: requoted)
        } catch .optionNotFound(let body) where !requoted {
            return try await reselect(
                option, after: .optionNotFound(body), paymentId: paymentId, accounts: accounts, confirmData: confirmData
            )
        } catch .routeExpired(let body) where !requoted {
            return try await reselect(
                option, after: .routeExpired(body), paymentId: paymentId, accounts: accounts, confirmData: confirmData)
        }
    }

    /// Fresh options, the one for the same asset and chain as `stale` (its amount's CAIP-19 unit), then that
    /// option completed (no further refresh); `error` again when there is none.
    private func reselect(
        _ stale: PaymentOption, after error: PayError, paymentId: String, accounts: [AccountID],
        confirmData: CollectedData?
    ) async throws(PayError) -> PaymentStatusResponse {
        let answer = try await client.paymentOptions(paymentId: paymentId, accounts: accounts)
        onStep(.options(answer))
        guard var fresh = answer.options.first(where: { $0.amount.unit == stale.amount.unit }) else { throw error }
        if fresh.collectData == nil { fresh.collectData = answer.collectData }
        if let problem = problem(with: fresh) { throw .optionNotCompletable(optionId: fresh.id, reason: problem) }
        onStep(.optionSelected(fresh))
        return try await complete(
            fresh, paymentId: paymentId, accounts: accounts, confirmData: confirmData, requoted: true)
    }

    /// One try at `option`: see ``complete(_:paymentId:accounts:confirmData:requoted:)``.
    private func attempt(
        _ option: PaymentOption, paymentId: String, accounts: [AccountID], confirmData: CollectedData?, requoted: Bool
    ) async throws(PayError) -> PaymentStatusResponse {
        let resolved = try await client.requiredActions(paymentId: paymentId, optionId: option.id)
        if option.needsFetch, let problem = problem(with: resolved) {
            throw .optionNotCompletable(optionId: option.id, reason: problem)
        }
        onStep(.actions(option, resolved))
        // Parsed and resolved once: the previews shown and checked are those of the requests that get signed.
        let prepared: Result<PreparedActions, DispatchError>
        do { prepared = .success(try await dispatcher.prepare(actions: resolved)) } catch { prepared = .failure(error) }
        let previews = try signingPreviews(of: prepared, actions: resolved)
        if let problem = optionCheck.problem(option: option, previews: previews) {
            throw .optionNotCompletable(optionId: option.id, reason: problem)
        }
        onStep(.preview(option, previews))
        try client.checkExpiry(paymentId: paymentId, optionId: option.id)
        let signed: SignedActions
        do { signed = try await dispatcher.sign(try prepared.get()) } catch { throw .signing(error) }
        onStep(.signed(signed))
        let onStep = self.onStep
        let final: PaymentStatusResponse
        do {
            final = try await client.confirmPayment(
                paymentId: paymentId, optionId: option.id, signed: signed, collectedData: confirmData,
                maxPollMs: maxPollMs, onStatus: { onStep(.status($0)) })
        } catch .quoteExpired(let body) where !requoted {
            // One automatic re-quote: fresh options for this option, then new signatures for its new actions.
            let answer = try await client.paymentOptions(paymentId: paymentId, accounts: accounts, refresh: [option.id])
            onStep(.options(answer))
            guard var fresh = answer.option(option.id) else { throw .quoteExpired(body) }
            if fresh.collectData == nil { fresh.collectData = answer.collectData }
            if let problem = problem(with: fresh) { throw .optionNotCompletable(optionId: fresh.id, reason: problem) }
            return try await complete(
                fresh, paymentId: paymentId, accounts: accounts, confirmData: confirmData, requoted: true)
        }
        onStep(.finished(final))
        return final
    }

    /// What each action does: from the prepared requests, or, when preparing refused the batch (a policy, a
    /// backend's preflight), from parsing alone, so the option check and the expiry guard still come before
    /// that refusal as they would before signing.
    private func signingPreviews(of prepared: Result<PreparedActions, DispatchError>, actions: [WalletRpcAction])
        throws(PayError) -> [SigningPreview]
    {
        switch prepared {
        case .success(let batch): return batch.requests.map(\.preview)
        case .failure:
            do { return try dispatcher.preview(actions: actions) } catch { throw .signing(error) }
        }
    }

    /// The collected answers as a prefill object (`"true"`/`"false"` become booleans).
    private func prefill() -> JSONObject {
        var object = JSONObject()
        for field in collectedData?.fields ?? [] {
            switch field.value {
            case "true": object[field.id] = .bool(true)
            case "false": object[field.id] = .bool(false)
            default: object[field.id] = .string(field.value)
            }
        }
        return object
    }

    /// Why these actions cannot be signed here, or `nil`.
    func problem(with actions: [WalletRpcAction]) -> String? {
        for (index, action) in actions.enumerated() {
            guard let method = RpcMethod(rawValue: action.method) else {
                return "action[\(index)]: unsupported method \(action.method)"
            }
            guard action.chainId.isEIP155 else { return "action[\(index)]: unsupported chain \(action.chainId)" }
            guard let account = Self.account(of: action, method: method) else {
                return "action[\(index)] (\(method)): no account in the params"
            }
            guard dispatcher.backend(for: account, chain: action.chainId, method: method) != nil else {
                return "action[\(index)] (\(method)): no signer for \(account.checksummed) on \(action.chainId)"
            }
            if method == .sendTransaction, !broadcastChains.contains(action.chainId) {
                return "action[\(index)] (\(method)): needs a node for \(action.chainId) to broadcast"
            }
        }
        return nil
    }

    /// Why the actions' previews do more than `option` shows, or `nil`.
    func previewProblem(_ option: PaymentOption, _ actions: [WalletRpcAction]) -> String? {
        guard !actions.isEmpty else { return nil }
        do { return optionCheck.problem(option: option, previews: try dispatcher.preview(actions: actions)) } catch {
            return error.description
        }
    }

    /// The signing account named in an action's params.
    static func account(of action: WalletRpcAction, method: RpcMethod) -> Address? {
        guard let params = try? JSONValue(parsing: action.params) else { return nil }
        let value: JSONValue?
        switch method {
        case .signTypedDataV4: value = params.arrayValue?.first
        case .personalSign: value = params.arrayValue.flatMap { $0.count > 1 ? $0[1] : nil }
        case .sendTransaction, .signTransaction:
            value = (params.arrayValue?.first ?? params)["from"]
        case .sponsorTransaction:
            value = (params.arrayValue?.first ?? params)["payer"]
        }
        return value?.stringValue.flatMap { try? Address($0) }
    }
}
