import CSecp256k1

extension PrivateKey {
    /// The key (k + t) mod n for a 32-byte big-endian tweak t, computed in secure memory with
    /// libsecp256k1's `secp256k1_ec_seckey_tweak_add` (the BIP-32 child-key step).
    ///
    /// - Returns: `nil` when t ≥ n or the sum is zero (BIP-32 then moves to the next index).
    /// - Precondition: `tweak` holds exactly 32 bytes.
    public func addingTweak(_ tweak: UnsafeRawBufferPointer) -> PrivateKey? {
        precondition(tweak.count == 32, "a secp256k1 tweak has 32 bytes")
        let context = SharedContext.shared.raw
        var added = false
        let sum = SecureBytes(count: 32) { (out: UnsafeMutableRawBufferPointer) in
            withUnsafeSecretBytes { out.copyMemory(from: $0) }
            guard let key = out.baseAddress?.assumingMemoryBound(to: UInt8.self),
                let t = tweak.baseAddress?.assumingMemoryBound(to: UInt8.self)
            else { return }
            added = secp256k1_ec_seckey_tweak_add(context, key, t) == 1
        }
        defer { sum.wipe() }
        guard added else { return nil }
        return try? PrivateKey(secret: sum)
    }
}
