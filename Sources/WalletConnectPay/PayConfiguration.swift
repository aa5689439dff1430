import Foundation
import SignerKitHTTP
import SignerKitSupport

/// How the client identifies itself to the Pay API: an `Api-Key`, or a public `App-Id` with a `Client-Id`.
public enum PayAuthentication: Sendable, Equatable, CustomStringConvertible {
    /// `Api-Key: <key>` (private; for backends and tools).
    case apiKey(String)
    /// `App-Id: <app id>` and `Client-Id: <client id>` (public; for wallets).
    case appId(String, clientId: String)
    /// No credentials (a local service).
    case none

    /// The header pairs to send.
    var headers: [(String, String)] {
        switch self {
        case .apiKey(let key): [("Api-Key", key)]
        case .appId(let app, let client): [("App-Id", app), ("Client-Id", client)]
        case .none: []
        }
    }

    /// Which mode, never the key itself.
    public var description: String {
        switch self {
        case .apiKey: "Api-Key (redacted)"
        case .appId(let app, let client): "App-Id \(app), Client-Id \(client)"
        case .none: "none"
        }
    }
}

/// When and how long to wait before repeating a request that failed with 429, a 5xx status or a
/// transport error.
///
/// The default: up to 5 retries; backoff 1 s doubling, capped at 2 s, each delay shortened by up to
/// 25 % at random (jitter); a 429's `Retry-After` is honoured, capped at 2 s.
public struct PayRetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt.
    public var maxRetries: Int
    /// The first backoff delay.
    public var baseDelay: Duration
    /// The longest backoff delay.
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured.
    public var retryAfterCap: Duration
    /// The largest fraction of a delay removed at random (0 disables jitter).
    public var jitter: Double

    /// Builds a policy.
    public init(
        maxRetries: Int = 5, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(2),
        retryAfterCap: Duration = .seconds(2), jitter: Double = 0.25
    ) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = max(.zero, baseDelay)
        self.maxDelay = max(.zero, maxDelay)
        self.retryAfterCap = max(.zero, retryAfterCap)
        self.jitter = min(1, max(0, jitter))
    }

    /// The production policy.
    public static let standard = PayRetryPolicy()

    /// No retries.
    public static let none = PayRetryPolicy(maxRetries: 0)

    /// The backoff before retry number `retry` (0-based): `baseDelay · 2^retry`, capped, with jitter.
    public func backoff(retry: Int) -> Duration { http.backoff(retry: retry) }

    /// The wait before retry number `retry` after an answer carrying `Retry-After` (seconds or an HTTP
    /// date): that value capped at ``retryAfterCap`` (any magnitude, checked before conversion), else the backoff.
    public func delay(retry: Int, retryAfter: String?, now: Date = Date()) -> Duration {
        http.delay(retry: retry, retryAfter: retryAfter, now: now)
    }

    /// The same policy for the retrying HTTP call: 429 and 5xx repeated for every endpoint that may be
    /// repeated, and 429 (the gateway's rate limiter, which answers before anything runs) even for `confirm`.
    var http: HTTPRetryPolicy {
        HTTPRetryPolicy(
            maxRetries: maxRetries, baseDelay: baseDelay, maxDelay: maxDelay, jitter: jitter,
            retryAfterCap: retryAfterCap, unprocessedStatuses: [429])
    }
}

/// Everything a ``PayClient`` needs to reach the Pay API.
public struct PayClientConfiguration: Sendable {
    /// The API version sent as `WCP-Version`.
    public static let apiVersion = "2026-02-19.preview"
    /// The production API.
    public static let productionURL: URL = {
        guard let url = URL(string: "https://api.pay.walletconnect.com") else {
            preconditionFailure("bad production URL")
        }
        return url
    }()
    /// `Sdk-Name` sent by default.
    public static let defaultSdkName = "signerkit-swift"
    /// `Sdk-Version` sent by default.
    public static let defaultSdkVersion = "1.0.0"
    /// `Sdk-Platform` sent by default: the operating system.
    public static var defaultSdkPlatform: String {
        #if os(Linux)
            "linux"
        #elseif os(macOS)
            "macos"
        #elseif os(iOS)
            "ios"
        #else
            "unknown"
        #endif
    }

    /// The API base, `https://api.pay.walletconnect.com` by default.
    public var baseURL: URL
    /// Credentials.
    public var authentication: PayAuthentication
    /// `Sdk-Name`.
    public var sdkName: String
    /// `Sdk-Version`.
    public var sdkVersion: String
    /// `Sdk-Platform`.
    public var sdkPlatform: String
    /// Retries for 429, 5xx and transport errors.
    public var retry: PayRetryPolicy
    /// Longest wait for the connection and for the first byte of each answer (10 s); a long poll adds its `maxPollMs`.
    public var connectTimeout: Duration
    /// Longest time one request may take in all (30 s); a long poll adds its `maxPollMs`.
    public var requestTimeout: Duration
    /// The largest response body accepted (8 MiB).
    public var maxResponseBytes: Int
    /// Hosts whose pages may collect personal data (`collectData.url`, https only): each host and its
    /// subdomains. WalletConnect's by default (``defaultDataCollectionHosts``). A loopback page is allowed
    /// only when ``baseURL`` itself is loopback (a local service).
    public var dataCollectionHosts: [String]
    /// The local expiry guard: nothing is signed for a payment or option that expires within this (10 s).
    public var expiryMargin: Duration
    /// Called with each request to the API and how it ended (``PayLogEvent``: method, endpoint, path, sizes,
    /// status — no header, no body); `nil` (the default) logs nothing. The steps of a payment go to
    /// ``PayFlow/onStep``.
    public var log: (@Sendable (PayLogEvent) -> Void)?

    /// WalletConnect's hosts: `walletconnect.com`, `walletconnect.org`, `reown.com` and their subdomains.
    public static let defaultDataCollectionHosts = ["walletconnect.com", "walletconnect.org", "reown.com"]

    /// A configuration; everything but the credentials has the production default.
    public init(
        baseURL: URL = PayClientConfiguration.productionURL, authentication: PayAuthentication,
        sdkName: String = PayClientConfiguration.defaultSdkName,
        sdkVersion: String = PayClientConfiguration.defaultSdkVersion,
        sdkPlatform: String = PayClientConfiguration.defaultSdkPlatform, retry: PayRetryPolicy = .standard,
        connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
        maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes,
        dataCollectionHosts: [String] = PayClientConfiguration.defaultDataCollectionHosts,
        expiryMargin: Duration = .seconds(10)
    ) {
        self.baseURL = baseURL
        self.authentication = authentication
        self.sdkName = sdkName
        self.sdkVersion = sdkVersion
        self.sdkPlatform = sdkPlatform
        self.retry = retry
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxResponseBytes = max(1, maxResponseBytes)
        self.dataCollectionHosts = dataCollectionHosts.map { $0.lowercased() }
        self.expiryMargin = max(.zero, expiryMargin)
    }

    /// Whether a data-collection page at `url` may be shown: https on a trusted host, or any loopback
    /// page when the API itself is loopback.
    public func allowsDataCollectionPage(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased(), let scheme = url.scheme?.lowercased(), url.user == nil else {
            return false
        }
        if LoopbackHost.contains(host), let apiHost = baseURL.host?.lowercased(), LoopbackHost.contains(apiHost) {
            return scheme == "http" || scheme == "https"
        }
        guard scheme == "https" else { return false }
        return dataCollectionHosts.contains { host == $0 || host.hasSuffix("." + $0) }
    }
}
