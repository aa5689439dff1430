import CGcrypt

/// HMAC-SHA256 (RFC 2104) through libgcrypt's MAC interface: webhook signatures keyed by a secret kept in
/// secure memory.
package enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key` (`nil` only if libgcrypt refuses to open or key the MAC).
    package static func mac(key: SecureBytes, message: [UInt8]) -> [UInt8]? {
        Gcrypt.ensureInitialized()
        var handle: gcry_mac_hd_t?
        guard
            gcry_mac_open(&handle, Int32(GCRY_MAC_HMAC_SHA256.rawValue), UInt32(GCRY_MAC_FLAG_SECURE.rawValue), nil)
                == 0, let handle
        else { return nil }
        defer { gcry_mac_close(handle) }
        let keyed = key.withUnsafeBytes { bytes in gcry_mac_setkey(handle, bytes.baseAddress, bytes.count) == 0 }
        guard keyed else { return nil }
        _ = message.withUnsafeBytes { bytes in gcry_mac_write(handle, bytes.baseAddress, bytes.count) }
        var digest = [UInt8](repeating: 0, count: 32)
        var length = digest.count
        let read = digest.withUnsafeMutableBytes { out in gcry_mac_read(handle, out.baseAddress, &length) == 0 }
        return read && length == 32 ? digest : nil
    }
}
