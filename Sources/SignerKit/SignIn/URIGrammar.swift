/// The parts of RFC 3986 (URI generic syntax) that EIP-4361 uses: `scheme`, `authority`, `URI`, `pchar`,
/// and the `reserved`/`unreserved` sets of the statement. Every check reads ASCII bytes and returns the
/// first problem as a short phrase (the caller names the field), or `nil` when the text conforms.
enum URIGrammar {
    /// `ALPHA`.
    static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// `DIGIT`.
    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// `HEXDIG` (either case, as ABNF strings are case-insensitive).
    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`.
    static func isSubDelim(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// `gen-delims = ":" / "/" / "?" / "#" / "[" / "]" / "@"`.
    static func isGenDelim(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"):
            true
        default: false
        }
    }

    /// `reserved = gen-delims / sub-delims`.
    static func isReserved(_ byte: UInt8) -> Bool { isGenDelim(byte) || isSubDelim(byte) }

    /// A phrase naming a byte that does not belong: `character " "` or `byte 0xE2` (not ASCII).
    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x20: "a space"
        case 0x09: "a tab"
        case 0x0D: "a carriage return"
        case 0x21...0x7E: "character \(String(Character(Unicode.Scalar(byte))).debugDescription)"
        case 0x80...: "byte 0x\(String(byte, radix: 16, uppercase: true)) (not ASCII)"
        default: "control byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    /// Checks that every byte is allowed by `allowed`, or is a `pct-encoded` triplet when `percent` is set.
    static func check(
        _ bytes: ArraySlice<UInt8>, percent: Bool, allowed: (UInt8) -> Bool
    ) -> String? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if percent, byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return "\"%\" not followed by two hex digits at offset \(index - bytes.startIndex)"
                }
                index += 3
                continue
            }
            guard allowed(byte) else { return "\(describe(byte)) at offset \(index - bytes.startIndex)" }
            index += 1
        }
        return nil
    }

    /// `pchar = unreserved / pct-encoded / sub-delims / ":" / "@"`.
    static func isPcharByte(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || isSubDelim(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
    }

    /// `*pchar` (EIP-4361's `request-id`).
    static func checkPchars(_ bytes: ArraySlice<UInt8>) -> String? {
        check(bytes, percent: true, allowed: isPcharByte)
    }

    /// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func checkScheme(_ bytes: ArraySlice<UInt8>) -> String? {
        guard let first = bytes.first else { return "empty scheme" }
        guard isAlpha(first) else { return "scheme must start with a letter, found \(describe(first))" }
        return check(bytes.dropFirst(), percent: false) {
            isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    /// The parts of an `authority = [ userinfo "@" ] host [ ":" port ]`.
    struct Authority: Equatable {
        /// The user info before `@`, if any.
        var userInfo: ArraySlice<UInt8>?
        /// The host: a `reg-name` (IPv4 addresses included) or an `IP-literal` with its brackets.
        var host: ArraySlice<UInt8>
        /// The port digits after `:`, if a `:` is present (possibly empty, as RFC 3986 allows).
        var port: ArraySlice<UInt8>?
    }

    /// Splits and checks an `authority`; `requireHost` refuses an empty host.
    static func parseAuthority(_ bytes: ArraySlice<UInt8>, requireHost: Bool) -> Result<Authority, AuthorityProblem> {
        var rest = bytes
        var userInfo: ArraySlice<UInt8>?
        if let at = bytes.firstIndex(of: UInt8(ascii: "@")) {
            let info = bytes[bytes.startIndex..<at]
            if let problem = check(info, percent: true, allowed: { isUnreserved($0) || isSubDelim($0) || $0 == 0x3A }) {
                return .failure(.init("user info: \(problem)"))
            }
            userInfo = info
            rest = bytes[(at + 1)...]
        }
        var host: ArraySlice<UInt8>
        var port: ArraySlice<UInt8>?
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else {
                return .failure(.init("IP literal without a closing \"]\""))
            }
            host = rest[rest.startIndex...close]
            if let problem = checkIPLiteral(rest[(rest.startIndex + 1)..<close]) { return .failure(.init(problem)) }
            let after = rest[(close + 1)...]
            if let first = after.first {
                guard first == UInt8(ascii: ":") else {
                    return .failure(.init("\(describe(first)) after the IP literal (expected \":\" and a port)"))
                }
                port = after.dropFirst()
            }
        } else {
            if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
                host = rest[rest.startIndex..<colon]
                port = rest[(colon + 1)...]
            } else {
                host = rest
            }
            if let problem = check(host, percent: true, allowed: { isUnreserved($0) || isSubDelim($0) }) {
                return .failure(.init("host: \(problem)"))
            }
        }
        if let port, let bad = port.first(where: { !isDigit($0) }) {
            return .failure(.init("port: \(describe(bad)) (a port is decimal digits)"))
        }
        if requireHost, host.isEmpty { return .failure(.init("empty host")) }
        return .success(Authority(userInfo: userInfo, host: host, port: port))
    }

    /// What is wrong with an authority.
    struct AuthorityProblem: Error, Equatable {
        /// The phrase.
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// `IP-literal = "[" ( IPv6address / IPvFuture ) "]"` without its brackets.
    static func checkIPLiteral(_ bytes: ArraySlice<UInt8>) -> String? {
        if let first = bytes.first, first == UInt8(ascii: "v") || first == UInt8(ascii: "V") {
            // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
            let body = bytes.dropFirst()
            guard let dot = body.firstIndex(of: UInt8(ascii: ".")), dot > body.startIndex,
                body[body.startIndex..<dot].allSatisfy(isHexDigit)
            else { return "IPvFuture literal must be \"v\", hex digits, \".\" and an address" }
            let address = body[(dot + 1)...]
            guard !address.isEmpty else { return "IPvFuture literal without an address" }
            if let problem = check(
                address, percent: false, allowed: { isUnreserved($0) || isSubDelim($0) || $0 == 0x3A })
            {
                return "IPvFuture literal: \(problem)"
            }
            return nil
        }
        return isIPv6Address(bytes) ? nil : "not an IPv6 address"
    }

    /// `IPv6address` of RFC 3986: eight 16-bit groups, or fewer with one `::`, the last two groups possibly an
    /// IPv4 address.
    static func isIPv6Address(_ bytes: ArraySlice<UInt8>) -> Bool {
        let text = Array(bytes)
        var halves: [[UInt8]] = []
        var compressed = false
        if let range = firstDoubleColon(text) {
            compressed = true
            halves = [Array(text[..<range]), Array(text[(range + 2)...])]
            if firstDoubleColon(halves[1]) != nil { return false }
        } else {
            halves = [text]
        }
        var groups = 0
        for (position, half) in halves.enumerated() {
            if half.isEmpty { continue }
            let pieces = half.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            for (i, piece) in pieces.enumerated() {
                let isLastOverall = position == halves.count - 1 && i == pieces.count - 1
                if isLastOverall, piece.contains(UInt8(ascii: ".")) {
                    guard isIPv4Address(piece) else { return false }
                    groups += 2
                    continue
                }
                guard (1...4).contains(piece.count), piece.allSatisfy(isHexDigit) else { return false }
                groups += 1
            }
        }
        return compressed ? groups <= 7 : groups == 8
    }

    private static func firstDoubleColon(_ text: [UInt8]) -> Int? {
        guard text.count >= 2 else { return nil }
        for i in 0..<(text.count - 1) where text[i] == 0x3A && text[i + 1] == 0x3A { return i }
        return nil
    }

    /// `IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet` (no leading zeros).
    static func isIPv4Address(_ bytes: ArraySlice<UInt8>) -> Bool {
        let octets = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        for octet in octets {
            guard (1...3).contains(octet.count), octet.allSatisfy(isDigit) else { return false }
            if octet.count > 1, octet.first == UInt8(ascii: "0") { return false }
            let value = octet.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard value <= 255 else { return false }
        }
        return true
    }

    /// `URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]` (an absolute URI: a scheme is required).
    static func checkURI(_ bytes: ArraySlice<UInt8>) -> String? {
        guard !bytes.isEmpty else { return "empty URI" }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return "no scheme (expected scheme \":\" …)" }
        if let problem = checkScheme(bytes[bytes.startIndex..<colon]) { return problem }
        var rest = bytes[(colon + 1)...]
        let queryOrFragment: (UInt8) -> Bool = { isPcharByte($0) || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
            if let problem = check(rest[(hash + 1)...], percent: true, allowed: queryOrFragment) {
                return "fragment: \(problem)"
            }
            rest = rest[rest.startIndex..<hash]
        }
        if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
            if let problem = check(rest[(question + 1)...], percent: true, allowed: queryOrFragment) {
                return "query: \(problem)"
            }
            rest = rest[rest.startIndex..<question]
        }
        var path = rest
        if rest.starts(with: [0x2F, 0x2F]) {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: UInt8(ascii: "/")) ?? afterSlashes.endIndex
            if case .failure(let problem) = parseAuthority(
                afterSlashes[afterSlashes.startIndex..<end], requireHost: false)
            {
                return "authority: \(problem.text)"
            }
            path = afterSlashes[end...]
        }
        if let problem = check(path, percent: true, allowed: { isPcharByte($0) || $0 == UInt8(ascii: "/") }) {
            return "path: \(problem)"
        }
        return nil
    }
}
