import Foundation
import SignerKitHTTP
import SignerKitSupport

/// Where KMS requests go: the region (for SigV4's scope) and the endpoint URL.
///
/// The region comes from the option, else `AWS_REGION`, else `AWS_DEFAULT_REGION`; the endpoint from the
/// option, else `AWS_ENDPOINT_URL_KMS`, else `AWS_ENDPOINT_URL`, else `https://kms.REGION.amazonaws.com`.
/// An endpoint must be `https`, or plain `http` to a loopback host (a local KMS), with no path, query or
/// credentials: a request signed for KMS never crosses a network in clear.
public struct AWSKMSEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The region, e.g. `eu-west-1`.
    public let region: String
    /// The endpoint, e.g. `https://kms.eu-west-1.amazonaws.com`.
    public let url: URL

    /// `region` and `url`, both checked.
    ///
    /// - Throws: ``AWSKMSError/invalidRegion(_:)``, ``AWSKMSError/invalidEndpoint(source:reason:)``.
    public init(region: String, url: URL? = nil) throws(AWSKMSError) {
        guard !region.isEmpty, region.count <= 64,
            region.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
        else { throw .invalidRegion(region) }
        self.region = region
        guard let url else {
            guard let standard = URL(string: "https://kms.\(region).amazonaws.com") else {
                throw .invalidRegion(region)
            }
            self.url = standard
            return
        }
        try Self.check(url, source: "the endpoint")
        self.url = url
    }

    /// The region and endpoint from the options, else from `environment`.
    ///
    /// - Throws: ``AWSKMSError/missingRegion``, ``AWSKMSError/invalidRegion(_:)``,
    ///   ``AWSKMSError/invalidEndpoint(source:reason:)`` naming the option or variable it came from.
    public static func resolve(
        region regionOption: String? = nil, endpointURL endpointOption: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AWSKMSError) -> AWSKMSEndpoint {
        let value = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let region = regionOption ?? value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") else {
            throw .missingRegion
        }
        let endpoint: (text: String, source: String)? =
            endpointOption.map { ($0, "--aws-endpoint-url") }
            ?? value("AWS_ENDPOINT_URL_KMS").map { ($0, "AWS_ENDPOINT_URL_KMS") }
            ?? value("AWS_ENDPOINT_URL").map { ($0, "AWS_ENDPOINT_URL") }
        guard let endpoint else { return try AWSKMSEndpoint(region: region) }
        guard let url = URL(string: endpoint.text) else {
            throw .invalidEndpoint(source: endpoint.source, reason: "\(AWSKMSError.quoted(endpoint.text)) is not a URL")
        }
        try check(url, source: endpoint.source)
        return try AWSKMSEndpoint(region: region, url: url)
    }

    /// `kms in eu-west-1 at https://…`.
    public var description: String { "AWS KMS in \(region) at \(url.absoluteString)" }

    /// Throws unless `url` is an endpoint requests may be sent to.
    static func check(_ url: URL, source: String) throws(AWSKMSError) {
        let shown = AWSKMSError.quoted(url.absoluteString)
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw .invalidEndpoint(source: source, reason: "\(shown) is not an https URL")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidEndpoint(source: source, reason: "\(shown) has no host")
        }
        guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil,
            url.path.isEmpty || url.path == "/"
        else {
            throw .invalidEndpoint(source: source, reason: "\(shown) must have no credentials, path or query")
        }
        if scheme == "http" && !LoopbackHost.contains(host) {
            throw .invalidEndpoint(
                source: source, reason: "plain http is refused except to a loopback host (\(shown)); use https")
        }
    }
}
