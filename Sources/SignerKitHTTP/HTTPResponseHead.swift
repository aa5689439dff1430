import EthereumPrimitives
import Foundation

/// The header fields of a response as libcurl hands them over, one line at a time (status lines included).
///
/// Only the final answer's fields are kept (a `100 Continue` or a followed redirect starts again), names are
/// lower-cased, values trimmed of spaces and tabs, lines whose name is not an RFC 9110 token skipped (no colon,
/// a folded continuation, bytes outside the token set), and at most ``maximumFields`` kept.
package struct HTTPResponseHead: Sendable {
    /// The most header fields kept from one answer; a server sending more gets the first ones read.
    package static let maximumFields = 200

    /// The fields of the answer read so far, in order.
    package private(set) var fields: [HTTPHeader] = []

    /// An empty head.
    package init() {}

    /// Reads one header line (with its line break, as libcurl gives it). The split is on bytes, not
    /// characters: a colon followed by a combining mark is still the separator.
    package mutating func add(line bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        if line.starts(with: Array("HTTP/".utf8)) {
            fields = []  // a new answer (after 100 Continue): only the final one's headers count
            return
        }
        guard let colon = line.firstIndex(of: 0x3A), colon > 0, line[0..<colon].allSatisfy(Self.isTokenByte) else {
            return
        }
        let name = String(decoding: line[0..<colon], as: UTF8.self).lowercased()
        var start = colon + 1
        var stop = line.count
        while start < stop, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while stop > start, line[stop - 1] == 0x20 || line[stop - 1] == 0x09 { stop -= 1 }
        let value = String(decoding: line[start..<stop], as: UTF8.self)
        if fields.count < Self.maximumFields { fields.append(HTTPHeader(name, value)) }
    }

    /// RFC 9110 `tchar`: the bytes a field name is made of.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The host a refused redirect points at, abbreviated (its `Location` resolved against `url`), or `nil`
    /// when there is no `Location`.
    package func redirectHost(relativeTo url: URL) -> String? {
        guard let location = fields.last(where: { $0.name == "location" })?.value else { return nil }
        let host = URL(string: location, relativeTo: url)?.host ?? location
        return EchoedText.abbreviated(host)
    }
}
