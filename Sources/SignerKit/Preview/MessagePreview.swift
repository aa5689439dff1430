import EthereumPrimitives
import Foundation

/// Previews `personal_sign` messages: text (hex when not UTF-8), EIP-4361 sign-in messages recognised.
enum MessagePreview {
    static let siweHeaderSuffix = " wants you to sign in with your Ethereum account:"

    static func preview(_ bytes: [UInt8], base: SigningPreview) -> SigningPreview {
        var preview = base
        preview.kind = .message
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let shown = bytes.count > 64 ? Hex.encode(bytes.prefix(64)) + "… (\(bytes.count) bytes)" : Hex.encode(bytes)
            preview.message = shown
            return preview
        }
        preview.message = quoted(text)
        if let siwe = SignInMessage(text) {
            preview.kind = .siwe
            preview.owner = siwe.address
            preview.deadline = siwe.expirationTime
            preview.fields = siwe.fields
        }
        return preview
    }

    /// Untrusted text for one line: control characters escaped (`\n`), then abbreviated.
    static func quoted(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars.prefix(EchoedText.limit * 2) {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default:
                if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        let clipped = text.unicodeScalars.count > EchoedText.limit * 2
        return EchoedText.abbreviated(escaped + (clipped ? "…" : ""))
    }
}

/// The fields of an EIP-4361 message that the preview shows (recognition, not verification: the header,
/// the address line and the `Key: value` lines).
struct SignInMessage {
    let domain: String
    let address: Address
    let expirationTime: UInt256?
    let fields: [PreviewField]

    init?(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 2, lines[0].hasSuffix(MessagePreview.siweHeaderSuffix),
            let address = try? Address(lines[1])
        else { return nil }
        let domain = String(lines[0].dropLast(MessagePreview.siweHeaderSuffix.count))
        guard !domain.isEmpty, !domain.contains(" ") else { return nil }
        self.domain = domain
        self.address = address
        var fields = [PreviewField(label: "domain", value: MessagePreview.quoted(domain))]
        let keys = [
            "URI", "Version", "Chain ID", "Nonce", "Issued At", "Expiration Time", "Not Before", "Request ID",
        ]
        var expiration: UInt256?
        var statement: String?
        if lines.count > 3, lines[2].isEmpty, !lines[3].isEmpty,
            !keys.contains(where: { lines[3].hasPrefix($0 + ": ") })
        {
            statement = lines[3]
        }
        if let statement { fields.append(PreviewField(label: "statement", value: MessagePreview.quoted(statement))) }
        for line in lines.dropFirst(2) {
            guard let key = keys.first(where: { line.hasPrefix($0 + ": ") }) else { continue }
            let value = String(line.dropFirst(key.count + 2))
            fields.append(PreviewField(label: key, value: MessagePreview.quoted(value)))
            if key == "Expiration Time", let date = Self.date(value) {
                expiration = UInt256(UInt64(max(0, date.timeIntervalSince1970)))
            }
        }
        guard fields.contains(where: { $0.label == "URI" }), fields.contains(where: { $0.label == "Nonce" }) else {
            return nil
        }
        self.expirationTime = expiration
        self.fields = fields
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
