import EthereumPrimitives
import Foundation

/// Typed reads of configuration members, each failing with the member's key path.
struct ConfigurationReader {
    /// The configuration file's folder: relative paths are resolved against it.
    let folder: String

    func fail(_ path: String, _ problem: String) -> ServiceConfigurationError { .init(path: path, problem: problem) }

    func object(_ value: JSONValue?, _ path: String) throws(ServiceConfigurationError) -> JSONObject {
        guard let value else { throw fail(path, "missing") }
        guard case .object(let object) = value else { throw fail(path, "expected an object, got \(value.kindName)") }
        return object
    }

    func array(_ value: JSONValue?, _ path: String) throws(ServiceConfigurationError) -> [JSONValue] {
        guard let value else { throw fail(path, "missing") }
        guard case .array(let array) = value else { throw fail(path, "expected an array, got \(value.kindName)") }
        return array
    }

    func string(_ value: JSONValue?, _ path: String) throws(ServiceConfigurationError) -> String {
        guard let value else { throw fail(path, "missing") }
        guard case .string(let text) = value else { throw fail(path, "expected a string, got \(value.kindName)") }
        return text
    }

    func bool(_ value: JSONValue, _ path: String) throws(ServiceConfigurationError) -> Bool {
        guard case .bool(let flag) = value else { throw fail(path, "expected true or false, got \(value.kindName)") }
        return flag
    }

    func integer(_ value: JSONValue, _ path: String, in range: ClosedRange<Int>) throws(ServiceConfigurationError)
        -> Int
    {
        guard case .number(let text) = value, let number = Int(text), range.contains(number) else {
            throw fail(path, "expected a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// A file path, resolved against the configuration's folder when relative.
    func path(_ value: JSONValue?, _ path: String) throws(ServiceConfigurationError) -> String {
        let text = try string(value, path)
        guard !text.isEmpty else { throw fail(path, "empty") }
        return text.hasPrefix("/") ? text : URL(fileURLWithPath: folder).appendingPathComponent(text).path
    }

    func chain(_ value: JSONValue, _ path: String) throws(ServiceConfigurationError) -> ChainID {
        let text = try string(value, path)
        let chain: ChainID
        do { chain = try ChainID(text) } catch { throw fail(path, "\(error)") }
        guard chain.isEIP155 else { throw fail(path, "only eip155 chains are served") }
        return chain
    }

    func address(_ value: JSONValue, _ path: String) throws(ServiceConfigurationError) -> Address {
        let text = try string(value, path)
        do { return try Address(text) } catch { throw fail(path, "\(error)") }
    }

    func httpURL(_ value: JSONValue, _ path: String) throws(ServiceConfigurationError) -> URL {
        let text = try string(value, path)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { throw fail(path, "\(EchoedText.abbreviated(text).debugDescription) is not an http(s) URL") }
        return url
    }

    func onlyMembers(_ object: JSONObject, _ allowed: [String], _ path: String) throws(ServiceConfigurationError) {
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            let prefix = path.isEmpty ? "" : path + "."
            throw fail(
                prefix + EchoedText.abbreviated(unknown), "unknown member (known: \(allowed.joined(separator: ", ")))")
        }
    }
}
