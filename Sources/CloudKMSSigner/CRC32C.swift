/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum Cloud KMS puts on what it receives
/// and answers (`digestCrc32c`, `signatureCrc32c`, `pemCrc32c`) so corruption in transit is caught.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        return value
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
