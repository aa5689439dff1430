import EthereumPrimitives

/// The 32-byte ABI words of the EIP-712 atomic types that are not already a value's own word (`Address.word`,
/// `UInt256.word`): one implementation shared by the JSON path (`ValueEncoder`) and generated structs
/// (``EIP712WordHasher``).
@usableFromInline enum ABIWord {
    /// `bool`: 1 or 0 in the last byte.
    @inlinable static func bool(_ flag: Bool) -> Bytes32 {
        var word = Bytes32.zero
        if flag { word[31] = 1 }
        return word
    }

    /// `bytesN`: the bytes left-aligned, the rest zero (`bytes.count` ≤ 32).
    @inlinable static func leftAligned(_ bytes: some Collection<UInt8>) -> Bytes32 {
        var word = Bytes32.zero
        word.withUnsafeMutableBytes { out in
            for (offset, byte) in bytes.enumerated() { out[offset] = byte }
        }
        return word
    }

    /// `intN` of a value that fits in 64 bits: two's complement over 256 bits.
    @inlinable static func signed(_ value: Int64) -> Bytes32 {
        let magnitude = UInt256(value.magnitude)
        return value < 0 ? magnitude.twosComplement.word : magnitude.word
    }
}
