/// Whether a URL's host names this machine: where plain `http` is allowed (a local test service, a signer
/// on the same host); every other host needs `https`.
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
