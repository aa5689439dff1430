import CGcrypt

/// SHA-256 of public data, through libgcrypt (ID-token signatures, PKCE, bearer-token hashes, test checks).
package enum SHA256 {
    /// The 32-byte digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Gcrypt.ensureInitialized()
        var digest = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { out in
                gcry_md_hash_buffer(Int32(GCRY_MD_SHA256.rawValue), out.baseAddress, input.baseAddress, input.count)
            }
        }
        return digest
    }
}
