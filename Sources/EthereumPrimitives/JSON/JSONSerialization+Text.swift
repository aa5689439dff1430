extension JSONValue {
    /// Compact JSON text (no spaces); numbers are written as their literal text, keys in order.
    public var serialized: String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                e.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, m) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(m.key, into: &out)
                out.append(UInt8(ascii: ":"))
                m.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Writes a JSON string literal with the required escapes: runs without one are copied whole.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = s
        text.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() where byte == 0x22 || byte == 0x5C || byte < 0x20 {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                writeEscape(byte, into: &out)
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The escape of a quote, a backslash or a control character.
    private static func writeEscape(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case 0x22: out.append(contentsOf: [0x5C, 0x22])
        case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            out.append(Hex.digits[Int(byte >> 4)])
            out.append(Hex.digits[Int(byte & 0x0F)])
        }
    }

    /// A JSON string literal for `text`, quotes included.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        writeString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
