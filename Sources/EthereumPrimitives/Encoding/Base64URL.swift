/// Base64url without padding (RFC 4648 §5, RFC 7515 §2): the encoding of every JWS and JWK part.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` encoded, without `=` padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [
                alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)],
            ]
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let n = UInt32(bytes[index]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of unpadded base64url text, or `nil` for a character outside the alphabet, padding,
    /// an impossible length, or non-zero unused trailing bits (so every byte string has one encoding).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for c in text.utf8 {
            switch c {
            case 0x41...0x5A: values.append(c - 0x41)
            case 0x61...0x7A: values.append(c - 0x61 + 26)
            case 0x30...0x39: values.append(c - 0x30 + 52)
            case 0x2D: values.append(62)
            case 0x5F: values.append(63)
            default: return nil
            }
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let n =
                UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6
                | UInt32(values[index + 3])
            out += [UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            index += 4
        }
        switch values.count - index {
        case 2:
            guard values[index + 1] & 0x0F == 0 else { return nil }
            out.append(values[index] << 2 | values[index + 1] >> 4)
        case 3:
            guard values[index + 2] & 0x03 == 0 else { return nil }
            let n = UInt32(values[index]) << 12 | UInt32(values[index + 1]) << 6 | UInt32(values[index + 2])
            out += [UInt8(n >> 10), UInt8(n >> 2 & 0xFF)]
        default: break
        }
        return out
    }
}
