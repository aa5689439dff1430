import Foundation
import SignerKitSupport

/// Where a remote signer listens: an `https` URL, or plain `http` to a loopback host only; no user, password,
/// query or fragment. A path is kept (a signer behind a reverse proxy's prefix).
public struct RemoteSignerEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The base URL: JSON-RPC is posted to it, REST paths are appended to it.
    public let url: URL

    /// Checks `text`.
    ///
    /// - Throws: ``RemoteSignerError/invalidURL(_:reason:)`` naming what is wrong.
    public init(_ text: String) throws(RemoteSignerError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw .invalidURL(text, reason: "not an absolute URL")
        }
        guard scheme == "https" || scheme == "http" else { throw .invalidURL(text, reason: "not an https URL") }
        guard let host = url.host, !host.isEmpty else { throw .invalidURL(text, reason: "no host") }
        guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil else {
            throw .invalidURL(text, reason: "must carry no credentials, query or fragment (tokens go in a file)")
        }
        if scheme == "http" && !LoopbackHost.contains(host) {
            throw .invalidURL(text, reason: "plain http is refused except to a loopback host; use https")
        }
        self.url = url
    }

    /// The URL of `path` (segments already percent-encoded) under the base URL.
    func appending(_ path: String) -> URL {
        let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
        return URL(string: base + path) ?? url
    }

    /// The URL as given.
    public var description: String { url.absoluteString }
}
