import Secp256k1

/// BIP-32 private derivation (hardened and normal) from a BIP-39 seed. Keys and chain codes stay
/// in secure memory and are wiped when no longer needed.
public enum HDWallet {
    /// The private key at `path` below the master key of `seed` (16 to 64 bytes; only read).
    ///
    /// Follows BIP-32: the master key is IL of HMAC-SHA512("Bitcoin seed", seed); a child key is
    /// parse256(IL) + k mod n (libsecp256k1's tweak-add). When IL ≥ n or the child is zero, BIP-32
    /// says to proceed with the next index, which this does (within the same hardened or normal
    /// range); for the master key it is an error.
    ///
    /// - Throws: ``HDWalletError``.
    public static func privateKey(seed: SecureBytes, path: DerivationPath) throws(HDWalletError) -> PrivateKey {
        guard (16...64).contains(seed.count) else { throw .seedLength(seed.count) }
        let master = seed.withUnsafeBytes { bytes in
            masterKeyLabel.withUnsafeBytes { HDCrypto.hmacSHA512(key: $0, data: bytes) }
        }
        defer { master.wipe() }
        var key = try master.withUnsafeBytes { (bytes) throws(HDWalletError) -> PrivateKey in
            let left = SecureBytes(count: 32) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<32])) }
            defer { left.wipe() }
            do { return try PrivateKey(secret: left) } catch { throw .invalidMasterKey }
        }
        var chainCode = master.withUnsafeBytes { bytes in
            SecureBytes(count: 32) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[32..<64])) }
        }
        for (offset, index) in path.indices.enumerated() {
            (key, chainCode) = try child(of: key, chainCode: chainCode, index: index, position: offset + 1)
        }
        chainCode.wipe()
        return key
    }

    /// "Bitcoin seed", BIP-32's HMAC key for the master key.
    private static let masterKeyLabel: [UInt8] = Array("Bitcoin seed".utf8)

    /// CKDpriv, moving to the next index while BIP-32 calls the result invalid.
    private static func child(of parent: PrivateKey, chainCode: SecureBytes, index: UInt32, position: Int)
        throws(HDWalletError) -> (PrivateKey, SecureBytes)
    {
        defer { chainCode.wipe() }
        let hardened = index >= DerivationPath.hardenedOffset
        var candidate = index
        while true {
            let data = SecureBytes(count: 37) { (out: UnsafeMutableRawBufferPointer) in
                if hardened {
                    out[0] = 0
                    parent.withUnsafeSecretBytes {
                        UnsafeMutableRawBufferPointer(rebasing: out[1..<33]).copyMemory(from: $0)
                    }
                } else {
                    parent.publicKey.compressed.withUnsafeBytes {
                        UnsafeMutableRawBufferPointer(rebasing: out[0..<33]).copyMemory(from: $0)
                    }
                }
                out[33] = UInt8(candidate >> 24)
                out[34] = UInt8((candidate >> 16) & 0xFF)
                out[35] = UInt8((candidate >> 8) & 0xFF)
                out[36] = UInt8(candidate & 0xFF)
            }
            defer { data.wipe() }
            let digest = chainCode.withUnsafeBytes { code in
                data.withUnsafeBytes { HDCrypto.hmacSHA512(key: code, data: $0) }
            }
            defer { digest.wipe() }
            let childKey = digest.withUnsafeBytes { parent.addingTweak(UnsafeRawBufferPointer(rebasing: $0[0..<32])) }
            if let childKey {
                let childCode = digest.withUnsafeBytes { bytes in
                    SecureBytes(count: 32) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[32..<64])) }
                }
                return (childKey, childCode)
            }
            let next = candidate &+ 1
            guard next != 0, (next >= DerivationPath.hardenedOffset) == hardened else {
                throw .noValidChild(position: position)
            }
            candidate = next
        }
    }
}

/// Why BIP-32 derivation failed (each case has probability below 2^-127 for a real seed, except
/// ``seedLength(_:)``).
public enum HDWalletError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The seed is not 16 to 64 bytes long (BIP-32's range).
    case seedLength(Int)
    /// The seed's master key is zero or not below n.
    case invalidMasterKey
    /// No valid child exists from the requested index to the end of its (hardened or normal) range
    /// at path segment `position`.
    case noValidChild(position: Int)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .seedLength(let count): "BIP-32 seed must be 16 to 64 bytes, got \(count)"
        case .invalidMasterKey: "this seed gives an invalid BIP-32 master key; use another seed"
        case .noValidChild(let position): "no valid BIP-32 child key at path segment \(position)"
        }
    }
}
