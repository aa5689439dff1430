import EthereumPrimitives
import Foundation
import SignerKitCurl
import Synchronization

/// Where the key set comes from, and its cache: a file read once, fixed keys, or a URL fetched with
/// SignerKit's libcurl client and fetched again (once per lookup, at most every
/// ``minimumRefetchInterval``) when a token names a `kid` the cached set lacks: key rotation.
public final class JWKSProvider: Sendable {
    /// A source of keys.
    public enum Source: Sendable {
        /// A JWKS JSON file.
        case file(String)
        /// A JWKS URL (`https://…/.well-known/jwks.json`; `http` only for loopback tests).
        case url(URL)
        /// Keys given directly.
        case keys(JSONWebKeySet)
    }

    /// The largest key set accepted: 256 KiB.
    public static let maximumBytes = 256 * 1024

    /// Where the keys come from.
    public let source: Source
    /// The shortest time between two fetches of a URL set (refetches on an unknown `kid` are skipped
    /// within it, so a flood of tokens with made-up ids cannot hammer the key server).
    public let minimumRefetchInterval: Duration
    private let transport: any HTTPTransport
    private let timeout: Duration
    /// Where the age of the cached set is read.
    private let clock: any SignerClock
    private let cache = Mutex<(set: JSONWebKeySet?, fetched: ContinuousClock.Instant?, fetches: Int)>((nil, nil, 0))

    /// A provider for `source`; URL sets are fetched over `transport` within `timeout` (a network
    /// deadline, in real time); `clock` (default: the system clock) tells when ``minimumRefetchInterval``
    /// has passed.
    public init(
        _ source: Source, minimumRefetchInterval: Duration = .seconds(30), timeout: Duration = .seconds(15),
        transport: any HTTPTransport = CurlHTTPTransport.shared, clock: any SignerClock = SystemClock()
    ) {
        self.source = source
        self.minimumRefetchInterval = minimumRefetchInterval
        self.timeout = timeout
        self.transport = transport
        self.clock = clock
    }

    /// A provider for a command-line value: an `http(s)://` URL, else a file path.
    public convenience init(location: String) {
        let lower = location.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://"), let url = URL(string: location) {
            self.init(.url(url))
        } else {
            self.init(.file(location))
        }
    }

    /// How many times the set was loaded (read or fetched) so far.
    public var loadCount: Int { cache.withLock { $0.fetches } }

    /// The keys for a token's `kid`: from the cache, or after loading the set; a URL set is fetched
    /// again once when the cached set has no such key and the last fetch is older than
    /// ``minimumRefetchInterval``.
    ///
    /// - Throws: ``IDTokenError/keySet(_:)`` when the set cannot be loaded.
    public func keys(for kid: String?) async throws(IDTokenError) -> [JSONWebKey] {
        let cached = cache.withLock { $0 }
        if let set = cached.set {
            let found = set.candidates(for: kid)
            guard found.isEmpty, case .url = source else { return found }
            if let fetched = cached.fetched, clock.now - fetched < minimumRefetchInterval { return found }
        }
        let set = try await load()
        return set.candidates(for: kid)
    }

    private func load() async throws(IDTokenError) -> JSONWebKeySet {
        let set: JSONWebKeySet
        switch source {
        case .keys(let keys): set = keys
        case .file(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw .keySet("cannot open key set file \(IDTokenError.shown(path))")
            }
            defer { try? handle.close() }
            let data: Data
            do { data = try handle.read(upToCount: Self.maximumBytes + 1) ?? Data() } catch {
                throw .keySet("cannot read key set file \(IDTokenError.shown(path)): \(error)")
            }
            guard data.count <= Self.maximumBytes else { throw .keySet("key set file is larger than 256 KiB") }
            set = try JSONWebKeySet(json: Array(data))
        case .url(let url):
            let response: HTTPResponse
            do {
                response = try await transport.send(
                    HTTPRequest(
                        method: "GET", url: url, headers: [HTTPHeader("Accept", "application/json")], timeout: timeout,
                        maxResponseBytes: Self.maximumBytes))
            } catch { throw .keySet("cannot fetch the key set: \(error)") }
            guard response.isSuccess else { throw .keySet("key set URL answered HTTP \(response.status)") }
            set = try JSONWebKeySet(json: response.body)
        }
        let now = clock.now
        cache.withLock { $0 = (set, now, $0.fetches + 1) }
        return set
    }
}
