import EthereumPrimitives
import Foundation

extension ServiceConfigurationError: LocatedJSONError {}

/// The configuration's own reads on top of ``JSONReader``: file paths, served chains and upstream URLs.
typealias ConfigurationReader = JSONReader<ServiceConfigurationError>

extension JSONReader where Failure == ServiceConfigurationError {
    /// A file path, resolved against `folder` (the configuration file's) when relative.
    func filePath(relativeTo folder: String) throws(ServiceConfigurationError) -> String {
        let text = try string()
        guard !text.isEmpty else { throw fail("empty") }
        return text.hasPrefix("/") ? text : URL(fileURLWithPath: folder).appendingPathComponent(text).path
    }

    /// A CAIP-2 chain the service can serve (eip155 only).
    func servedChain() throws(ServiceConfigurationError) -> ChainID {
        let chain = try chain()
        guard chain.isEIP155 else { throw fail("only eip155 chains are served") }
        return chain
    }

    /// An `http` or `https` URL with a host.
    func httpURL() throws(ServiceConfigurationError) -> URL {
        let text = try string()
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { throw fail("\(EchoedText.abbreviated(text).debugDescription) is not an http(s) URL") }
        return url
    }
}
