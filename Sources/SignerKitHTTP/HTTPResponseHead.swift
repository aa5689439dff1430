import EthereumPrimitives
import Foundation

/// The header fields of a response as libcurl hands them over, one line at a time (status lines included).
///
/// Only the final answer's fields are kept (a `100 Continue` or a followed redirect starts again), names are
/// lower-cased, names and values trimmed, lines without a colon skipped, and at most ``maximumFields`` kept.
package struct HTTPResponseHead: Sendable {
    /// The most header fields kept from one answer; a server sending more gets the first ones read.
    package static let maximumFields = 200

    /// The fields of the answer read so far, in order.
    package private(set) var fields: [HTTPHeader] = []

    /// An empty head.
    package init() {}

    /// Reads one header line (with its line break, as libcurl gives it).
    package mutating func add(line bytes: UnsafeRawBufferPointer) {
        // "\r\n" is one Character in Swift: trim newlines as a set, not by suffix.
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
        if line.hasPrefix("HTTP/") {
            fields = []  // a new answer (after 100 Continue): only the final one's headers count
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if fields.count < Self.maximumFields { fields.append(HTTPHeader(name, value)) }
    }

    /// The host a refused redirect points at, abbreviated (its `Location` resolved against `url`), or `nil`
    /// when there is no `Location`.
    package func redirectHost(relativeTo url: URL) -> String? {
        guard let location = fields.last(where: { $0.name == "location" })?.value else { return nil }
        let host = URL(string: location, relativeTo: url)?.host ?? location
        return EchoedText.abbreviated(host)
    }
}
