import EthereumPrimitives
import SignerKit

/// The Pay API endpoint a request went to; error mapping depends on it.
public enum PayEndpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `GET /v1/gateway/payment/{id}`.
    case payment
    /// `POST /v1/gateway/payment/{id}/options`.
    case options
    /// `POST /v1/gateway/payment/{id}/fetch`.
    case fetch
    /// `POST /v1/gateway/payment/{id}/confirm`.
    case confirm
    /// `GET /v1/gateway/payment/{id}/status`.
    case status

    /// The endpoint's name.
    public var description: String { rawValue }
}

/// The error body the Pay API sends (`{"code","message"}`) with the HTTP status it came with.
public struct PayAPIError: Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The body's `code` (`payment_not_found`, `quote_expired`, …); `nil` when the body had none.
    public var code: String?
    /// The body's `message`, or a short excerpt of a non-JSON body.
    public var message: String
    /// The endpoint that answered.
    public var endpoint: PayEndpoint

    /// Builds an error body.
    public init(status: Int, code: String?, message: String, endpoint: PayEndpoint) {
        self.status = status
        self.code = code
        self.message = message
        self.endpoint = endpoint
    }

    /// `options: HTTP 404 payment_not_found: …`.
    public var description: String {
        var text = "\(endpoint): HTTP \(status)"
        if let code { text += " \(code)" }
        if !message.isEmpty { text += ": \(message)" }
        return text
    }
}

/// Why a Pay operation failed. Server errors are mapped from the error body's `code` and the HTTP
/// status (see ``PayError/classify(_:)``); the rest are raised by the client before or after a request.
public enum PayError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: Server answers

    /// The body's code was `quote_expired`: the option's quote is stale; fetch options again.
    case quoteExpired(PayAPIError)
    /// HTTP 404: no such payment.
    case paymentNotFound(PayAPIError)
    /// HTTP 410: the payment expired.
    case paymentExpired(PayAPIError)
    /// HTTP 400 from fetch/confirm/status: the option (or the request about it) is invalid.
    case invalidOption(PayAPIError)
    /// HTTP 422 from fetch/confirm/status: a result does not verify (wrong signer, wrong order, unknown transaction).
    case invalidSignature(PayAPIError)
    /// HTTP 409 from confirm: the option's route is no longer valid (elsewhere a 409 is ``http(_:)``, as
    /// upstream maps it). ``PayFlow`` refreshes the options once and reselects the same asset and chain.
    case routeExpired(PayAPIError)
    /// The body's code was `option_not_found`: the option went stale (the payment's options changed).
    /// ``PayFlow`` refreshes the options once and reselects the same asset and chain.
    case optionNotFound(PayAPIError)
    /// HTTP 429 after every retry.
    case rateLimited(PayAPIError)
    /// HTTP 400 from options: the request is malformed.
    case invalidRequest(PayAPIError)
    /// HTTP 422 from options: an account is not usable.
    case invalidAccount(PayAPIError)
    /// HTTP 451 from options: the payment is refused for compliance reasons.
    case complianceFailed(PayAPIError)
    /// Any other non-2xx answer (5xx after every retry, 401, …).
    case http(PayAPIError)

    // MARK: Transport and response

    /// The request did not reach the service or no answer came back, after every retry.
    case transport(String)
    /// No answer within the connect or request timeout, after every retry.
    case timeout(String)
    /// The service answered 2xx with a body that is not what the endpoint returns; the text names the field.
    case invalidResponse(String)
    /// The calling task was cancelled.
    case cancelled
    /// A request that may have been acted on got no usable answer (the connection was lost after it was
    /// sent, its body was cut short, or a 5xx hid the outcome), and asking again could not settle it. For
    /// `confirm` the client has already asked the payment's status; it never re-sends blindly.
    case outcomeUnknown(endpoint: PayEndpoint, reason: String)
    /// The service answered with a redirect, which is never followed (credentials stay with the
    /// configured origin); the `Location` host, abbreviated.
    case redirectRefused(endpoint: PayEndpoint, status: Int, host: String?)

    // MARK: Client-side checks

    /// The payment link (or wallet deep link) carries no payment id.
    case invalidPaymentLink(PaymentLinkError)
    /// An account is not a valid CAIP-10 id, or the list is empty.
    case invalidAccounts(String)
    /// The payment has no option with this id (among the options last fetched).
    case unknownOption(String)
    /// `confirmPayment` was called for an option whose actions this client has not fetched.
    case actionsNotFetched(optionId: String)
    /// The signed bundle does not answer exactly the option's actions, in order.
    case signedActionsMismatch(optionId: String, reason: String)
    /// The option needs data collection and no collected data was supplied.
    case dataCollectionRequired(optionId: String, url: String?)
    /// The option cannot be completed with this wallet (no backend, no node, unsupported method, …).
    case optionNotCompletable(optionId: String, reason: String)
    /// No option of the payment can be completed; one reason per option.
    case noCompletableOption([String])
    /// Signing the option's actions failed.
    case signing(DispatchError)
    /// The payment did not reach a final status before the client deadline (`maxPollMs`); the last status seen.
    case pollingTimedOut(lastStatus: PaymentStatus)
    /// The payment or the option expires at `expiresAt` (Unix seconds), within the expiry margin
    /// (``PayClientConfiguration/expiryMargin``): nothing was signed.
    case expiresTooSoon(optionId: String, expiresAt: Int64)
    /// The option's data-collection page is not https on a trusted host
    /// (``PayClientConfiguration/dataCollectionHosts``); the host, abbreviated. Nothing was sent to it.
    case untrustedDataCollectionPage(optionId: String, host: String)
    /// The option's data-collection page reported an error (`{"type":"IC_ERROR","error":…}`): its text,
    /// abbreviated (`EchoedText.abbreviated(_:)`). Nothing was fetched, signed or confirmed.
    case dataCollectionFailed(optionId: String, message: String)

    /// The server's error body, for errors that came from the service.
    public var apiError: PayAPIError? {
        switch self {
        case .quoteExpired(let e), .paymentNotFound(let e), .paymentExpired(let e), .invalidOption(let e),
            .invalidSignature(let e), .routeExpired(let e), .optionNotFound(let e), .rateLimited(let e),
            .invalidRequest(let e),
            .invalidAccount(let e), .complianceFailed(let e), .http(let e):
            return e
        default:
            return nil
        }
    }

    /// Maps an error answer to its case: body codes `quote_expired` and `option_not_found` first, then the
    /// HTTP status; 409 is a route expiry from confirm only; the options endpoint reads 400, 422 and 451 as
    /// request, account and compliance errors.
    public static func classify(_ error: PayAPIError) -> PayError {
        if error.code == "quote_expired" { return .quoteExpired(error) }
        if error.code == "option_not_found" { return .optionNotFound(error) }
        switch error.status {
        case 404: return .paymentNotFound(error)
        case 410: return .paymentExpired(error)
        case 409 where error.endpoint == .confirm: return .routeExpired(error)
        case 429: return .rateLimited(error)
        default: break
        }
        if error.endpoint == .options {
            switch error.status {
            case 400: return .invalidRequest(error)
            case 422: return .invalidAccount(error)
            case 451: return .complianceFailed(error)
            default: return .http(error)
            }
        }
        switch error.status {
        case 400: return .invalidOption(error)
        case 422: return .invalidSignature(error)
        default: return .http(error)
        }
    }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .quoteExpired(let e): "quote expired (\(e))"
        case .paymentNotFound(let e): "payment not found (\(e))"
        case .paymentExpired(let e): "payment expired (\(e))"
        case .invalidOption(let e): "invalid option (\(e))"
        case .invalidSignature(let e): "invalid signature (\(e))"
        case .routeExpired(let e): "route expired (\(e))"
        case .optionNotFound(let e): "option not found (\(e))"
        case .rateLimited(let e): "rate limited (\(e))"
        case .invalidRequest(let e): "invalid request (\(e))"
        case .invalidAccount(let e): "invalid account (\(e))"
        case .complianceFailed(let e): "compliance check failed (\(e))"
        case .http(let e): "Pay API error (\(e))"
        case .transport(let text): "transport error: \(text)"
        case .timeout(let text): "timed out: \(text)"
        case .invalidResponse(let text): "invalid response: \(text)"
        case .cancelled: "cancelled"
        case .outcomeUnknown(let endpoint, let reason): "\(endpoint): outcome unknown (the request was sent): \(reason)"
        case .redirectRefused(let endpoint, let status, let host):
            "\(endpoint): redirect refused (HTTP \(status) to "
                + (host.map { "host \(EchoedText.abbreviated($0).debugDescription)" } ?? "no Location") + ")"
        case .invalidPaymentLink(let error): "\(error)"
        case .invalidAccounts(let text): "accounts: \(text)"
        case .unknownOption(let id): "unknown option \(id)"
        case .actionsNotFetched(let id): "the actions of option \(id) were not fetched by this client"
        case .signedActionsMismatch(let id, let reason): "signed actions do not answer option \(id): \(reason)"
        case .dataCollectionRequired(let id, let url):
            "option \(id) needs data collection" + (url.map { " (\($0))" } ?? "")
        case .optionNotCompletable(let id, let reason): "option \(id) cannot be completed: \(reason)"
        case .noCompletableOption(let reasons):
            reasons.isEmpty
                ? "the payment offers no options" : "no option can be completed: " + reasons.joined(separator: "; ")
        case .signing(let error): "signing failed: \(error)"
        case .pollingTimedOut(let status): "no final status before the deadline (last status \(status))"
        case .expiresTooSoon(let id, let expiresAt):
            "option \(id): the payment or its quote expires at \(expiresAt) (Unix time), too soon to sign"
        case .untrustedDataCollectionPage(let id, let host):
            "option \(id): the data-collection page's host \(EchoedText.abbreviated(host).debugDescription) is not trusted "
                + "(https on a WalletConnect host is required)"
        case .dataCollectionFailed(let id, let message):
            "option \(id): the data-collection page reported an error: \(EchoedText.abbreviated(message).debugDescription)"
        }
    }
}
