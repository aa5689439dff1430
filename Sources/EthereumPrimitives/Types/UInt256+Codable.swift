extension UInt256: Codable {
    /// Decodes from a decimal or `0x`-hex string (how JSON carries integers past 2^53), or from a
    /// non-negative integer that fits in 64 bits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let small = try? container.decode(UInt64.self) {
            self.init(small)
            return
        }
        let text = try container.decode(String.self)
        do {
            self = try UInt256(text: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes as its decimal string (exact in every JSON reader, unlike a number past 2^53).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(decimalString)
    }
}
