import Foundation

/// Standard base64 with padding (RFC 4648 §4), the encoding of signed notes and checkpoints, read strictly:
/// only the one canonical encoding of each byte string is accepted (padding present and exact, no line
/// breaks or spaces, zero unused bits), so a signed text has one spelling.
enum StandardBase64 {
    /// `bytes` encoded, padded.
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// The bytes of canonical padded base64 text, or `nil`.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let text = String(text)
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else { return nil }
        return [UInt8](data)
    }
}
