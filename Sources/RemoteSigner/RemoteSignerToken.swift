/// The bearer token a remote signer is called with (`Authorization: Bearer <token>`).
///
/// Read by the caller from a file or an environment variable, never from a command line; its description
/// is a fixed placeholder, so no log, error or `print` shows it.
public struct RemoteSignerToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The token's text (only the HTTP header sees it).
    let value: String

    /// A token; `nil` when `value` is empty or holds a control character or a space (it could not be one
    /// header value).
    public init?(_ value: String) {
        guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            return nil
        }
        self.value = value
    }

    /// `<bearer token>`.
    public var description: String { "<bearer token>" }

    /// `<bearer token>`.
    public var debugDescription: String { description }
}
