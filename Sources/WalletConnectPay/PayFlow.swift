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
/// Without an option id the flow takes the first option it can complete: every action's method is
/// one SignerKit signs, the dispatcher has a backend for the account, chain and method,
/// `eth_sendTransaction` only on ``broadcastChains``, and data collection only when
/// ``collectedData`` or ``dataCollectionHandler`` is set. Skipped options are reported with the reason.
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
        /// The user declined.
        case declined
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
        onStep(.paymentId(paymentId))
        let answer = try await client.paymentOptions(paymentId: paymentId, accounts: accounts)
        onStep(.options(answer))

        let candidates: [PaymentOption]
        if let optionId {
            guard let option = answer.option(optionId) else { throw .unknownOption(optionId) }
            candidates = [option]
        } else {
            candidates = answer.options
        }
        var reasons: [String] = []
        for option in candidates {
            do {
                return try await complete(option, paymentId: paymentId, paymentCollectData: answer.collectData)
            } catch .optionNotCompletable(let id, let reason) where optionId == nil {
                onStep(.optionSkipped(option, reason: reason))
                reasons.append("\(id): \(reason)")
            }
        }
        if candidates.isEmpty, let status = answer.info?.status, status != .requiresAction {
            reasons.append("the payment is \(status)")
        }
        throw .noCompletableOption(reasons)
    }

    /// Checks, collects data for, resolves, signs and confirms one option. The option's `collectData`
    /// wins over the payment-level one.
    private func complete(_ option: PaymentOption, paymentId: String, paymentCollectData: CollectData?)
        async throws(PayError)
        -> PaymentStatusResponse
    {
        var option = option
        if option.collectData == nil { option.collectData = paymentCollectData }
        let given = option.actions.compactMap(\.walletRpcAction)
        if let problem = problem(with: given) { throw .optionNotCompletable(optionId: option.id, reason: problem) }
        var confirmData: CollectedData?
        if option.needsDataCollection {
            guard collectedData != nil || dataCollectionHandler != nil else {
                throw .optionNotCompletable(
                    optionId: option.id, reason: "needs data collection (no collected data supplied)")
            }
        }
        onStep(.optionSelected(option))
        if option.needsDataCollection, let collect = option.collectData {
            let url = DataCollection.url(for: collect, prefill: prefill(), theme: theme, themeVariables: themeVariables)
            onStep(.dataCollection(option, url: url))
            if let dataCollectionHandler {
                switch await dataCollectionHandler(option, url) {
                case .submittedOnPage: confirmData = nil
                case .collected(let data): confirmData = data
                case .declined: throw .dataCollectionRequired(optionId: option.id, url: url?.absoluteString)
                }
            } else {
                confirmData = collectedData
            }
        }
        // The page comes first; then `build` actions are fetched (and checked like the others).
        let resolved = try await client.requiredActions(paymentId: paymentId, optionId: option.id)
        if option.needsFetch, let problem = problem(with: resolved) {
            throw .optionNotCompletable(optionId: option.id, reason: problem)
        }
        onStep(.actions(option, resolved))
        let signed: SignedActions
        do { signed = try await dispatcher.sign(actions: resolved) } catch { throw .signing(error) }
        onStep(.signed(signed))
        let onStep = self.onStep
        let final = try await client.confirmPayment(
            paymentId: paymentId, optionId: option.id, signed: signed, collectedData: confirmData, maxPollMs: maxPollMs,
            onStatus: { onStep(.status($0)) })
        onStep(.finished(final))
        return final
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

    /// The signing account named in an action's params.
    static func account(of action: WalletRpcAction, method: RpcMethod) -> Address? {
        guard let params = try? JSONValue(parsing: action.params) else { return nil }
        let value: JSONValue?
        switch method {
        case .signTypedDataV4: value = params.arrayValue?.first
        case .personalSign: value = params.arrayValue.flatMap { $0.count > 1 ? $0[1] : nil }
        case .sendTransaction, .signTransaction:
            value = (params.arrayValue?.first ?? params)["from"]
        }
        return value?.stringValue.flatMap { try? Address($0) }
    }
}
