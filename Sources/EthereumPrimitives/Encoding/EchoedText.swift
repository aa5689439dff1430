/// Untrusted text as error messages quote it: whole when short, otherwise its first ``limit``
/// characters and an ellipsis, so a megabyte of hostile input never becomes a megabyte of error
/// message (or of log line).
public enum EchoedText {
    /// The most characters quoted.
    public static let limit = 80

    /// `text`, or its first ``limit`` characters followed by `…`.
    public static func abbreviated(_ text: some StringProtocol) -> String {
        guard text.utf8.count > limit, text.count > limit else { return String(text) }
        return String(text.prefix(limit)) + "…"
    }
}
