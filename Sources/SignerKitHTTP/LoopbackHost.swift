/// Which hosts count as loopback for the endpoints that allow plain `http` only to the local machine (a
/// local KMS or a test stand-in): a request carrying credentials never crosses a network in clear.
package enum LoopbackHost {
    /// Whether `host` is `localhost`, an address in 127.0.0.0/8 or `::1` (bracketed or not).
    package static func contains(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && UInt8(part) != nil
        }
    }
}
