import EthereumPrimitives
import Foundation

/// Previews `personal_sign` messages: text (hex when not UTF-8), EIP-4361 sign-in messages parsed by
/// ``SignInMessage`` (the one parser).
enum MessagePreview {
    static func preview(_ bytes: [UInt8], base: SigningPreview) -> SigningPreview {
        var preview = base
        preview.kind = .message
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let shown = bytes.count > 64 ? Hex.encode(bytes.prefix(64)) + "… (\(bytes.count) bytes)" : Hex.encode(bytes)
            preview.message = shown
            return preview
        }
        preview.message = quoted(text)
        guard SignInDomainBinding.containsPhrase(bytes) else { return preview }
        do {
            let siwe = try SignInMessage(bytes: bytes)
            preview.kind = .siwe
            preview.owner = siwe.address
            preview.deadline = siwe.expirationTime.map { UInt256(UInt64(max(0, $0.unixSeconds))) }
            preview.fields = fields(of: siwe)
        } catch {
            // EIP-4361 asks wallets to warn of a message that claims to be a sign-in but does not conform.
            preview.fields = [PreviewField(label: "not EIP-4361", value: error.description)]
        }
        return preview
    }

    /// The fields a wallet must show (scheme, domain, statement, resources; the address is the preview's
    /// owner) and the others, labelled as the message labels them.
    static func fields(of message: SignInMessage) -> [PreviewField] {
        var fields: [PreviewField] = []
        if let scheme = message.scheme { fields.append(PreviewField(label: "scheme", value: quoted(scheme))) }
        fields.append(PreviewField(label: "domain", value: quoted(message.domain)))
        if let statement = message.statement {
            fields.append(PreviewField(label: "statement", value: quoted(statement)))
        }
        fields.append(PreviewField(label: "URI", value: quoted(message.uri)))
        fields.append(PreviewField(label: "Version", value: SignInMessage.version))
        fields.append(PreviewField(label: "Chain ID", value: message.chainId.decimalString))
        fields.append(PreviewField(label: "Nonce", value: quoted(message.nonce)))
        fields.append(PreviewField(label: "Issued At", value: quoted(message.issuedAt.text)))
        if let time = message.expirationTime {
            fields.append(PreviewField(label: "Expiration Time", value: quoted(time.text)))
        }
        if let time = message.notBefore { fields.append(PreviewField(label: "Not Before", value: quoted(time.text))) }
        if let id = message.requestId { fields.append(PreviewField(label: "Request ID", value: quoted(id))) }
        for (i, resource) in (message.resources ?? []).enumerated() {
            fields.append(PreviewField(label: "Resources[\(i)]", value: quoted(resource)))
        }
        return fields
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
