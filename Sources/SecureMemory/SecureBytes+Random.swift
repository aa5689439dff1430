extension SecureBytes {
    /// `count` bytes from libgcrypt's `GCRY_VERY_STRONG_RANDOM` generator (long-term secrets such
    /// as mnemonic entropy), generated directly in secure memory.
    public static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { (buffer: UnsafeMutableRawBufferPointer) in
            Gcrypt.randomize(buffer, veryStrong: true)
        }
    }
}
