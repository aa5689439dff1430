/// EIP-191 version 0x45 ("personal_sign") messages.
public enum PersonalMessage {
    /// The message bytes for a `personal_sign` parameter: strict `0x`-hex is bytes, any other text is UTF-8.
    ///
    /// A string that starts with `0x` but is not valid hex (odd length, stray characters) is signed
    /// as its UTF-8 text, as wallets do.
    public static func bytes(fromParameter text: String) -> [UInt8] {
        if text.hasPrefix("0x"), let bytes = try? Hex.decode(text) { return bytes }
        return Array(text.utf8)
    }

    /// keccak256("\u{19}Ethereum Signed Message:\n" + decimal length + message).
    public static func digest(_ message: [UInt8]) -> Bytes32 {
        var hasher = Keccak256.Hasher()
        hasher.update(Array("\u{19}Ethereum Signed Message:\n\(message.count)".utf8))
        hasher.update(message)
        return hasher.finalize()
    }

    /// The digest of a `personal_sign` parameter (see ``bytes(fromParameter:)``).
    public static func digest(parameter text: String) -> Bytes32 {
        digest(bytes(fromParameter: text))
    }
}
