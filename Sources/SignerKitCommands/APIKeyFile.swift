/// `--api-key-file FILE`: the WalletConnect Pay API key, read like a password file (see
/// ``SecretFile``: a regular file of mode 0600 or stricter, not a symlink; one trailing newline
/// dropped). The key ends up in an ordinary string because the Pay client sends it as a header.
enum APIKeyFile {
    /// Longest key file read.
    static let maximumSize = 4096

    /// The key in the file at `path`.
    ///
    /// - Throws: 65 naming the file (`no such file`, `mode 0644 …`, `the API key is empty`), or
    ///   when the key is not printable ASCII (it goes into an HTTP header).
    static func read(_ path: String, allowInsecure: Bool) throws(CommandFailure) -> String {
        let (secret, _) = try SecretFile.readLine(
            path, what: "API key", maximumSize: maximumSize, allowInsecure: allowInsecure)
        defer { secret.wipe() }
        let bytes = secret.withUnsafeBytes { Array($0) }
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidInput(
                "\(TextSafety.displayArgument(path)): the API key must be printable ASCII without spaces")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
