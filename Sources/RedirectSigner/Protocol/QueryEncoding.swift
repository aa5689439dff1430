import SignerKitSupport

/// Percent-encoding for request URLs and form decoding for callback URLs.
///
/// Encoding is strict: only RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`) pass, so `+`
/// becomes `%2B`, space `%20`, and `&`, `=`, `#`, `/`, `:` and `?` can never change how a value is
/// read. Decoding follows `application/x-www-form-urlencoded`: `+` is a space, `%XX` a byte, and the
/// bytes must be UTF-8.
public enum QueryEncoding {
    /// Whether `byte` is an RFC 3986 unreserved character.
    static func isUnreserved(_ byte: UInt8) -> Bool { PercentEncoding.isUnreserved(byte) }

    /// Percent-encodes every byte of `text`'s UTF-8 except the unreserved characters (space as `%20`).
    public static func percentEncode(_ text: String) -> String {
        encode(text, spaceAsPlus: false)
    }

    /// Form-encodes `text`: as ``percentEncode(_:)`` but a space becomes `+` (what hosted wallets send).
    public static func formEncode(_ text: String) -> String {
        encode(text, spaceAsPlus: true)
    }

    private static func encode(_ text: String, spaceAsPlus: Bool) -> String {
        PercentEncoding.encode(text, spaceAsPlus: spaceAsPlus)
    }

    /// `name=value&…` with both sides percent-encoded, pairs in the given order.
    public static func query(_ pairs: [(String, String)], spaceAsPlus: Bool = false) -> String {
        pairs.map { "\(encode($0.0, spaceAsPlus: spaceAsPlus))=\(encode($0.1, spaceAsPlus: spaceAsPlus))" }
            .joined(separator: "&")
    }

    /// Decodes one form-encoded component: `+` is a space, `%XX` a byte; `nil` for a bad escape or
    /// bytes that are not UTF-8.
    public static func formDecode(_ component: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.utf8.count)
        var iterator = component.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Splits a query (without `?`) into decoded pairs in order; empty segments are skipped and a
    /// segment without `=` has an empty value. `nil` names the first undecodable part.
    package static func decodePairs(_ query: Substring) -> Result<[(name: String, value: String)], DecodeFailure> {
        var pairs: [(name: String, value: String)] = []
        for segment in query.split(separator: "&", omittingEmptySubsequences: true) {
            let rawName: Substring
            let rawValue: Substring
            if let equals = segment.firstIndex(of: "=") {
                rawName = segment[..<equals]
                rawValue = segment[segment.index(after: equals)...]
            } else {
                rawName = segment
                rawValue = ""
            }
            guard let name = formDecode(rawName) else { return .failure(DecodeFailure(name: String(rawName))) }
            guard let value = formDecode(rawValue) else { return .failure(DecodeFailure(name: name)) }
            pairs.append((name, value))
        }
        return .success(pairs)
    }

    /// A query part that is not valid form encoding.
    package struct DecodeFailure: Error {
        /// The parameter it belongs to (as written when the name itself is undecodable).
        package let name: String
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
