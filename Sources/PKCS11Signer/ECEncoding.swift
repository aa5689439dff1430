import EthereumPrimitives
import Secp256k1

/// DER helpers for `CKA_EC_PARAMS` and `CKA_EC_POINT`.
package enum ECEncoding {
    /// `CKA_EC_PARAMS` for secp256k1: the named-curve OID 1.3.132.0.10, DER-encoded.
    package static let secp256k1Parameters: [UInt8] = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x0A]

    /// Well-known named curves by DER-encoded OID.
    package static let knownCurves: [[UInt8]: String] = [
        secp256k1Parameters: "secp256k1",
        [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]: "P-256 (prime256v1)",
        [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]: "P-384 (secp384r1)",
        [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]: "P-521 (secp521r1)",
        [0x06, 0x09, 0x2B, 0x24, 0x03, 0x03, 0x02, 0x08, 0x01, 0x01, 0x07]: "brainpoolP256r1",
    ]

    /// A readable name for `CKA_EC_PARAMS`: a known curve, `OID a.b.c…`, or a note that the
    /// parameters are explicit or missing.
    package static func curveName(_ parameters: [UInt8]?) -> String {
        guard let parameters, !parameters.isEmpty else { return "unknown (no CKA_EC_PARAMS)" }
        if let name = knownCurves[parameters] { return name }
        if parameters[0] == 0x30 { return "explicit parameters" }
        if parameters[0] == 0x06, let dotted = oidString(parameters) { return "OID \(dotted)" }
        if parameters[0] == 0x13 {
            // The token's own bytes: shown abbreviated, like any untrusted text.
            return "printable name \(EchoedText.abbreviated(String(decoding: parameters.dropFirst(2), as: UTF8.self)))"
        }
        return "unrecognised CKA_EC_PARAMS"
    }

    /// Dotted form of a DER OBJECT IDENTIFIER, or `nil` if malformed.
    package static func oidString(_ der: [UInt8]) -> String? {
        guard der.count >= 3, der[0] == 0x06, Int(der[1]) == der.count - 2 else { return nil }
        var parts: [String] = []
        var value: UInt64 = 0
        for byte in der.dropFirst(2) {
            guard value < (1 << 56) else { return nil }
            value = value << 7 | UInt64(byte & 0x7F)
            guard byte & 0x80 == 0 else { continue }
            if parts.isEmpty {
                let first = min(value / 40, 2)
                parts.append(String(first))
                parts.append(String(value - first * 40))
            } else {
                parts.append(String(value))
            }
            value = 0
        }
        return parts.isEmpty ? nil : parts.joined(separator: ".")
    }

    /// `CKA_EC_POINT` as PKCS#11 specifies it: the SEC 1 point wrapped in a DER OCTET STRING
    /// (`04 41 04‖X‖Y` for an uncompressed secp256k1 point).
    package static func wrapPoint(_ key: PublicKey) -> [UInt8] {
        let point = key.uncompressed
        return [0x04, UInt8(point.count)] + point
    }

    /// Parses `CKA_EC_POINT` in the standard DER-wrapped form or, as some modules return it, the
    /// raw SEC 1 point.
    package static func parsePoint(_ bytes: [UInt8]) -> PublicKey? {
        if let inner = unwrapOctetString(bytes), let key = try? PublicKey(bytes: inner), inner.count != 64 {
            return key
        }
        // 64 bytes is X‖Y without a prefix: not a valid CKA_EC_POINT in either form.
        guard bytes.count == 65 || bytes.count == 33 else { return nil }
        return try? PublicKey(bytes: bytes)
    }

    /// The content of a DER OCTET STRING spanning all of `bytes`, or `nil`.
    package static func unwrapOctetString(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard bytes.count >= 2, bytes[0] == 0x04 else { return nil }
        let length: Int
        let header: Int
        switch bytes[1] {
        case 0..<0x80:
            length = Int(bytes[1])
            header = 2
        case 0x81:
            guard bytes.count >= 3 else { return nil }
            length = Int(bytes[2])
            header = 3
        default:
            return nil
        }
        guard header + length == bytes.count else { return nil }
        return bytes[header...]
    }
}
