import EthereumPrimitives
import Foundation
import SignerKitSupport

/// Why a string yields no payment id.
public enum PaymentLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The string is empty (or only whitespace).
    case empty
    /// A `wc:` URI without a `pay` parameter, or a Pay URL without `pid` and without a path.
    case noPaymentId(String)
    /// Neither a `wc:` URI, an `http(s)` URL nor a bare id (a scheme-less string without `/`).
    case unsupported(String)
    /// The id cannot be one path segment of the API: it holds `/`, `?`, `#` or a control character, or
    /// is `.` or `..` (also percent-encoded). The id (abbreviated) and why.
    case invalidPaymentId(String, reason: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .empty: "payment link: empty"
        case .noPaymentId(let link):
            "payment link \(EchoedText.abbreviated(link).debugDescription) carries no payment id"
        case .unsupported(let link):
            "\(EchoedText.abbreviated(link).debugDescription) is not a payment link (expected a wc: URI, an http(s) URL or a payment id)"
        case .invalidPaymentId(let id, let reason):
            "payment id \(EchoedText.abbreviated(id).debugDescription): \(reason)"
        }
    }
}

/// WalletConnect Pay payment links: detection, payment-id extraction and wallet deep links.
///
/// ```swift
/// PaymentLink.isPaymentLink("https://pay.walletconnect.com/?pid=pay_123")      // true
/// try PaymentLink.paymentId(from: "https://pay.walletconnect.com/pay_123")     // "pay_123"
/// PaymentLink.paymentLink(fromWalletDeepLink: "yourwallet://walletconnectpay?paymentId=pay_1")  // "pay_1"
/// ```
public enum PaymentLink {
    /// The Pay host; it and its subdomains carry the id in `pid` or the path.
    public static let payHost = "pay.walletconnect.com"

    /// The markers that make a string a payment link (compared lower-cased).
    static let markers = ["pay.", "pay=", "pay_", "pay%2e", "pay%3d", "pay%5f"]

    /// Whether `text` looks like a payment link: its lower-cased form contains `pay.`, `pay=`,
    /// `pay_`, `pay%2e`, `pay%3d` or `pay%5f`. Cheap; use it to route scanned codes, then call
    /// ``paymentId(from:)``.
    public static func isPaymentLink(_ text: String) -> Bool {
        let lower = text.lowercased()
        return markers.contains { lower.contains($0) }
    }

    /// Extracts the payment id from a payment link.
    ///
    /// Tries the URL-decoded string, then the original:
    /// - `wc:` URIs: the `pay` query parameter (after `?`, or after the first `&` when there is no `?`),
    ///   extracted in turn;
    /// - `http(s)` on `pay.walletconnect.com` or a subdomain of it: the `pid` query parameter, else
    ///   the path without its leading `/`;
    /// - `http(s)` on any other host: the whole URL, percent-encoded;
    /// - no scheme and no `/`: the string itself.
    ///
    /// Surrounding whitespace is ignored.
    public static func paymentId(from link: String) throws(PaymentLinkError) -> String {
        let text = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .empty }
        var candidates: [String] = []
        if let decoded = text.removingPercentEncoding, decoded != text { candidates.append(decoded) }
        candidates.append(text)
        var firstFailure: PaymentLinkError?
        for candidate in candidates {
            // An id is returned only when it can be one path segment of the API (what the client checks too).
            switch extract(candidate, depth: 0).flatMap({ id in
                Result { () throws(PaymentLinkError) in try validatePaymentId(id) }.map { id }
            }) {
            case .success(let id): return id
            case .failure(let error): if firstFailure == nil { firstFailure = error }
            }
        }
        throw firstFailure ?? .unsupported(text)
    }

    /// The payment link (or bare payment id) carried by a wallet deep link, or `nil` when `url` is not one:
    /// - `yourwallet://?uri=wc:…&pay=…` (the `uri` value, encoded or not, when it is a payment link);
    /// - `yourwallet://walletconnectpay?paymentId=pay_…` (the `paymentId` value; the host must be
    ///   `walletconnectpay`, compared as a host, not found anywhere in the text).
    ///
    /// `wc:`, `http(s)` payment links themselves are not deep links: pass them to ``paymentId(from:)``.
    public static func paymentLink(fromWalletDeepLink url: String) -> String? {
        let text = url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let schemeEnd = schemeLength(text) else { return nil }
        let scheme = text.prefix(schemeEnd).lowercased()
        guard scheme != "wc" else { return nil }
        guard let question = text.firstIndex(of: "?") else { return nil }
        var query = text[text.index(after: question)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        if host(ofDeepLink: text[..<question], schemeLength: schemeEnd) == "walletconnectpay",
            let id = parameters(query).first(where: { $0.name == "paymentId" })?.value, !id.isEmpty
        {
            return id
        }
        // `uri=` as a parameter: at the start of the query or after `&`.
        var searchStart = query.startIndex
        while let range = query[searchStart...].range(of: "uri=") {
            let atBoundary = range.lowerBound == query.startIndex || query[query.index(before: range.lowerBound)] == "&"
            if atBoundary {
                let rest = query[range.upperBound...]
                let segment = rest.prefix { $0 != "&" }
                let value: String
                if segment.lowercased().hasPrefix("wc:") {
                    // An unencoded wc: URI runs to the end: its own `&pay=…` follows it.
                    value = String(rest)
                } else {
                    value = String(segment).removingPercentEncoding ?? String(segment)
                }
                return isPaymentLink(value) ? value : nil
            }
            searchStart = range.upperBound
        }
        return nil
    }

    /// The host of `scheme://host[/path]` (lower-cased, without user info or port), or `nil` without `//`.
    private static func host(ofDeepLink head: Substring, schemeLength: Int) -> String? {
        let afterScheme = head.dropFirst(schemeLength + 1)
        guard afterScheme.hasPrefix("//") else { return nil }
        var authority = afterScheme.dropFirst(2).prefix { $0 != "/" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let colon = authority.firstIndex(of: ":") { authority = authority[..<colon] }
        return authority.lowercased()
    }

    /// The payment id from a wallet deep link, a payment link or a bare id: unwraps a deep link first.
    public static func paymentId(fromLinkOrDeepLink text: String) throws(PaymentLinkError) -> String {
        if let inner = paymentLink(fromWalletDeepLink: text) { return try paymentId(from: inner) }
        return try paymentId(from: text)
    }

    /// Checks that `id` can only ever be one path segment: not empty, no `/`, `?`, `#`, `\\` or control
    /// characters, and neither `.` nor `..` (nor their percent-encoded forms such as `%2e%2E`).
    ///
    /// - Throws: ``PaymentLinkError/empty`` or ``PaymentLinkError/invalidPaymentId(_:reason:)``.
    public static func validatePaymentId(_ id: String) throws(PaymentLinkError) {
        guard !id.isEmpty else { throw .empty }
        let shown = EchoedText.abbreviated(id)
        if let bad = id.unicodeScalars.first(where: {
            "/?#\\".unicodeScalars.contains($0) || $0.value < 0x20 || $0.value == 0x7F
        }) {
            throw .invalidPaymentId(shown, reason: "contains \(String(bad).debugDescription)")
        }
        let decoded = (id.removingPercentEncoding ?? id)
        if decoded == "." || decoded == ".." || id == "." || id == ".." {
            throw .invalidPaymentId(shown, reason: "is a dot segment")
        }
        if decoded.contains("/")
            && decoded.split(separator: "/", omittingEmptySubsequences: false).contains(where: {
                $0 == "." || $0 == ".."
            })
        {
            throw .invalidPaymentId(shown, reason: "holds an encoded dot segment")
        }
    }

    /// `id` as one URL path segment: unreserved characters and existing `%XX` escapes stay, the rest is encoded.
    public static func pathSegment(_ id: String) -> String {
        var out = ""
        let bytes = Array(id.utf8)
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if isUnreserved(c) {
                out.unicodeScalars.append(Unicode.Scalar(c))
            } else if c == UInt8(ascii: "%"), i + 2 < bytes.count, isHexDigit(bytes[i + 1]), isHexDigit(bytes[i + 2]) {
                out += "%" + String(decoding: bytes[(i + 1)...(i + 2)], as: UTF8.self).uppercased()
                i += 2
            } else {
                out += percentByte(c)
            }
            i += 1
        }
        return out
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`).
    public static func percentEncode(_ text: String) -> String { PercentEncoding.encode(text) }

    // MARK: - Extraction

    private static func extract(_ candidate: String, depth: Int) -> Result<String, PaymentLinkError> {
        let lower = candidate.lowercased()
        if lower.hasPrefix("wc:") {
            guard depth == 0 else { return .failure(.unsupported(candidate)) }
            // The parameters follow `?`; leniently, the first `&` when there is no `?` (the guide's own test
            // link, `wc:abc...&pay=pay_xyz`).
            guard let start = candidate.firstIndex(of: "?") ?? candidate.firstIndex(of: "&"),
                let pay = parameters(candidate[candidate.index(after: start)...]).first(where: { $0.name == "pay" })?
                    .value,
                !pay.isEmpty
            else { return .failure(.noPaymentId(candidate)) }
            return extract(pay, depth: depth + 1)
        }
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard let components = URLComponents(string: candidate), let host = components.host?.lowercased(),
                !host.isEmpty
            else { return .failure(.unsupported(candidate)) }
            guard host == payHost || host.hasSuffix("." + payHost) else {
                return .success(percentEncode(candidate))
            }
            if let pid = components.queryItems?.first(where: { $0.name == "pid" })?.value, !pid.isEmpty {
                return .success(pid)
            }
            var path = Substring(components.path)
            if path.hasPrefix("/") { path = path.dropFirst() }
            guard !path.isEmpty else { return .failure(.noPaymentId(candidate)) }
            return .success(String(path))
        }
        if schemeLength(candidate) != nil || candidate.contains("/") { return .failure(.unsupported(candidate)) }
        return .success(candidate)
    }

    /// The length of an RFC 3986 scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` before `:`), if any.
    static func schemeLength(_ text: String) -> Int? {
        var count = 0
        for c in text.utf8 {
            if c == UInt8(ascii: ":") { return count > 0 ? count : nil }
            let alpha = (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
            let allowed = alpha || (count > 0 && ((0x30...0x39).contains(c) || c == 0x2B || c == 0x2D || c == 0x2E))
            guard allowed else { return nil }
            count += 1
        }
        return nil
    }

    /// `name=value` pairs of a query string, both percent-decoded when they decode.
    package static func parameters(_ query: Substring) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let name: Substring
            let value: Substring
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            return (
                String(name).removingPercentEncoding ?? String(name),
                String(value).removingPercentEncoding ?? String(value)
            )
        }
    }

    @inline(__always) static func isUnreserved(_ c: UInt8) -> Bool { PercentEncoding.isUnreserved(c) }

    @inline(__always) static func isHexDigit(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
    }

    static func percentByte(_ c: UInt8) -> String { PercentEncoding.escape(c) }
}

/// Whether `text` looks like a WalletConnect Pay payment link (see ``PaymentLink/isPaymentLink(_:)``).
public func isPaymentLink(_ text: String) -> Bool { PaymentLink.isPaymentLink(text) }
