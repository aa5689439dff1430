import Foundation
import SignerKitHTTP
import SignerKitSupport

/// The rule every URL a request with credentials goes to must meet (a KMS endpoint, a vault, a token
/// endpoint): `https`, or plain `http` to a loopback host (a local stand-in), with a host and no user
/// information, query or fragment.
enum CloudEndpoint {
    /// `text` as a URL meeting the rule; `allowsPath` for URLs that carry one (a token URI, a key id).
    ///
    /// - Throws: ``CloudKMSError/invalidEndpoint(_:source:reason:)`` naming `source` (an option, a variable or a
    ///   file's field).
    static func url(
        _ text: String, source: String, provider: CloudKMSProvider, allowsPath: Bool = false
    ) throws(CloudKMSError) -> URL {
        let shown = CloudKMSError.quoted(text)
        guard let url = URL(string: text) else {
            throw .invalidEndpoint(provider, source: source, reason: "\(shown) is not a URL")
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw .invalidEndpoint(provider, source: source, reason: "\(shown) is not an https URL")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidEndpoint(provider, source: source, reason: "\(shown) has no host")
        }
        guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil,
            allowsPath || url.path.isEmpty || url.path == "/"
        else {
            throw .invalidEndpoint(
                provider, source: source,
                reason: "\(shown) must have no credentials, query\(allowsPath ? "" : ", path") or fragment")
        }
        guard scheme == "https" || LoopbackHost.contains(host) else {
            throw .invalidEndpoint(
                provider, source: source,
                reason: "plain http is refused except to a loopback host (\(shown)); use https")
        }
        return url
    }

    /// `scheme://host[:port]` of `url`, without a trailing slash: the base paths are appended to.
    static func origin(_ url: URL) -> String {
        var text = "\(url.scheme?.lowercased() ?? "https")://\(url.host ?? "")"
        if let port = url.port { text += ":\(port)" }
        return text
    }
}
