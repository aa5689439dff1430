import EthereumPrimitives
import Synchronization

/// An OAuth2 bearer token and how long it lives, as a token endpoint answered it. Its value never appears in
/// `description`, `debugDescription` or a mirror.
struct AccessToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The bearer token.
    let value: String
    /// Its lifetime from when it was issued (`expires_in`).
    let lifetime: Duration

    /// A token `value` valid for `lifetime`.
    init(value: String, lifetime: Duration) {
        self.value = value
        self.lifetime = lifetime
    }

    /// `AccessToken(valid 3599 s)`; never the token.
    var description: String { "AccessToken(valid \(lifetime.components.seconds) s)" }

    /// The same as ``description``.
    var debugDescription: String { description }

    /// The lifetime only.
    var customMirror: Mirror { Mirror(self, children: ["lifetime": lifetime]) }

    /// Reads a token endpoint's JSON answer (`access_token`, `expires_in` as a number or a numeric string).
    ///
    /// - Throws: ``CloudKMSError/malformedResponse(_:key:field:reason:)`` naming the field.
    static func parse(_ json: JSONValue?, provider: CloudKMSProvider) throws(CloudKMSError) -> AccessToken {
        guard let value = json?["access_token"]?.stringValue, !value.isEmpty,
            value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { throw .malformedResponse(provider, key: nil, field: "access_token", reason: "missing or not a token") }
        let seconds: Int?
        switch json?["expires_in"] {
        case .number(let text)?: seconds = Int(text)
        case .string(let text)?: seconds = Int(text)
        default: seconds = nil
        }
        guard let seconds, seconds > 0 else {
            throw .malformedResponse(
                provider, key: nil, field: "expires_in", reason: "missing or not a positive number")
        }
        return AccessToken(value: value, lifetime: .seconds(seconds))
    }
}

/// Keeps the access token of one identity and fetches a new one when the cached one is within ``margin`` of
/// its expiry, read on the injected clock. Concurrent callers share one fetch.
final class AccessTokenCache: Sendable {
    /// Fetches a token (one exchange at the token endpoint).
    typealias Fetch = @Sendable () async throws(CloudKMSError) -> AccessToken

    private struct Cached: Sendable {
        var token: AccessToken
        var expiry: ContinuousClock.Instant
    }

    private struct State: Sendable {
        var cached: Cached?
        var fetching: Task<Result<Cached, CloudKMSError>, Never>?
    }

    /// How long before its expiry a token is replaced: it must not expire in flight.
    let margin: Duration
    private let clock: any SignerClock
    private let fetch: Fetch
    private let state = Mutex(State())

    /// A cache fetching with `fetch`, timing on `clock`.
    init(clock: any SignerClock, margin: Duration = .seconds(300), fetch: @escaping Fetch) {
        self.clock = clock
        self.margin = margin
        self.fetch = fetch
    }

    /// The cached token while it has more than ``margin`` left, else a new one.
    ///
    /// - Throws: the fetch's ``CloudKMSError``.
    func token() async throws(CloudKMSError) -> String {
        let now = clock.now
        let task = state.withLock { state -> Task<Result<Cached, CloudKMSError>, Never>? in
            if let cached = state.cached, now < cached.expiry { return nil }
            if let fetching = state.fetching { return fetching }
            let clock = clock
            let margin = margin
            let fetch = fetch
            let task = Task { () -> Result<Cached, CloudKMSError> in
                let started = clock.now
                do throws(CloudKMSError) {
                    let token = try await fetch()
                    // Half the lifetime when it is shorter than twice the margin.
                    let early = min(margin, token.lifetime / 2)
                    return .success(Cached(token: token, expiry: started.advanced(by: token.lifetime - early)))
                } catch { return .failure(error) }
            }
            state.fetching = task
            return task
        }
        guard let task else {
            if let value = state.withLock({ $0.cached?.token.value }) { return value }
            return try await token()
        }
        let result = await task.value
        state.withLock { state in
            if case .success(let cached) = result { state.cached = cached }
            if state.fetching == task { state.fetching = nil }
        }
        return try result.get().token.value
    }

    /// Forgets the cached token (the service refused it): the next call fetches a new one.
    func invalidate() {
        state.withLock { $0.cached = nil }
    }
}
