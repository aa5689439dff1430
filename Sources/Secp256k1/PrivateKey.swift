import CSecp256k1
import EthereumPrimitives

/// A secp256k1 private key held in libgcrypt secure memory.
///
/// The 32 secret bytes live in a `SecureBytes` buffer that is zeroed when the key is released.
/// Nothing the type prints or throws contains them: `description`, `debugDescription` and
/// `dump` show only the address. Instances are immutable and safe to share across tasks;
/// concurrent signing with one key is supported.
public final class PrivateKey: Sendable {
    private let secret: SecureBytes

    /// The public key, derived once at creation.
    public let publicKey: PublicKey

    /// The Ethereum address, derived once at creation.
    public var address: Address { publicKey.address }

    /// Takes ownership of a 32-byte buffer after checking 0 < key < n.
    private init(validating secret: SecureBytes) throws(KeyError) {
        guard secret.count == 32 else { throw .wrongLength(secret.count) }
        let context = SharedContext.shared.raw
        let point: secp256k1_pubkey? = secret.withUnsafeBytes { bytes in
            // A non-empty buffer's base address is never nil.
            // swift-format-ignore: NeverForceUnwrap
            let key = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard secp256k1_ec_seckey_verify(context, key) == 1 else { return nil }
            var point = secp256k1_pubkey()
            guard secp256k1_ec_pubkey_create(context, &point, key) == 1 else { return nil }
            return point
        }
        guard let point else { throw .outOfRange }
        self.secret = secret
        publicKey = PublicKey(point: point)
    }

    /// Parses `0x` followed by 64 hex digits (either case). Leading and trailing whitespace and
    /// newlines are ignored, as key files usually end with a newline.
    ///
    /// The digits are decoded straight into secure memory, with no intermediate array. The
    /// caller's string itself cannot be wiped; keep its lifetime short.
    ///
    /// - Throws: ``KeyError/invalidHex`` for anything but 32 bytes of `0x`-hex,
    ///   ``KeyError/outOfRange`` for zero or a value ≥ n.
    public convenience init(hex text: String) throws(KeyError) {
        let secret = try SecureBytes(count: 32) { (buffer: UnsafeMutableRawBufferPointer) throws(KeyError) in
            try Self.decodeHex(text, into: buffer)
        }
        try self.init(validating: secret)
    }

    /// Takes 32 raw key bytes and overwrites the caller's array with zeros, whether or not the
    /// bytes are a valid key.
    ///
    /// Only the array's own storage is wiped: if other copies share it (copy-on-write), they
    /// keep the bytes.
    ///
    /// - Throws: ``KeyError/wrongLength(_:)`` unless 32 bytes, ``KeyError/outOfRange`` for zero
    ///   or a value ≥ n.
    public convenience init(bytes: inout [UInt8]) throws(KeyError) {
        guard bytes.count == 32 else {
            let count = bytes.count
            bytes.withUnsafeMutableBytes { Gcrypt.wipe($0) }
            throw .wrongLength(count)
        }
        try self.init(validating: SecureBytes(wiping: &bytes))
    }

    /// Copies 32 key bytes from another secure buffer (for example a decrypted keystore); the
    /// source is left untouched and may be wiped by the caller afterwards.
    ///
    /// - Throws: ``KeyError/wrongLength(_:)`` unless 32 bytes, ``KeyError/outOfRange`` for zero
    ///   or a value ≥ n.
    public convenience init(secret: SecureBytes) throws(KeyError) {
        guard secret.count == 32 else { throw .wrongLength(secret.count) }
        try self.init(validating: SecureBytes(copying: secret))
    }

    /// A new random key from libgcrypt's `GCRY_VERY_STRONG_RANDOM` generator, generated directly
    /// in secure memory.
    public static func generate() -> PrivateKey {
        while true {
            let secret = SecureBytes(count: 32) { (buffer: UnsafeMutableRawBufferPointer) in
                Gcrypt.randomize(buffer, veryStrong: true)
            }
            // Retried only if the 32 bytes are 0 or ≥ n (probability below 2^-127).
            if let key = try? PrivateKey(validating: secret) { return key }
        }
    }

    /// Signs a 32-byte digest with ECDSA and the deterministic RFC 6979 nonce.
    ///
    /// The result is always low-s (s ≤ n/2, EIP-2) and its recovery id refers to that form, so
    /// ``ECDSA/recover(prehash:signature:)`` returns ``publicKey``.
    public func sign(prehash: Digest32) -> RecoverableSignature {
        let context = SharedContext.shared.raw
        var signature = secp256k1_ecdsa_recoverable_signature()
        let signed = secret.withUnsafeBytes { key in
            prehash.withUnsafeBytes { digest in
                // 32-byte buffers: their base addresses are never nil.
                // swift-format-ignore: NeverForceUnwrap
                let digestBytes = digest.baseAddress!.assumingMemoryBound(to: UInt8.self)
                // swift-format-ignore: NeverForceUnwrap
                let keyBytes = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
                return secp256k1_ecdsa_sign_recoverable(context, &signature, digestBytes, keyBytes, nil, nil)
            }
        }
        // Fails only for an invalid key, which the initialisers rule out.
        precondition(signed == 1, "secp256k1_ecdsa_sign_recoverable failed")
        var r = Bytes32()
        var s = Bytes32()
        var recoveryId: Int32 = 0
        r.withUnsafeMutableBytes { rBytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { compact in
                // A 64-byte allocation: its base address is never nil.
                // swift-format-ignore: NeverForceUnwrap
                let output = compact.baseAddress!
                _ = secp256k1_ecdsa_recoverable_signature_serialize_compact(context, output, &recoveryId, &signature)
                let raw = UnsafeRawBufferPointer(compact)
                rBytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[0..<32]))
                s.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[32..<64])) }
            }
        }
        // libsecp256k1 always produces low s; normalise anyway so the guarantee does not rest on it.
        let (lowS, flipped) = ECDSA.normalize(r: r, s: s)
        assert(!flipped, "libsecp256k1 produced a high-s signature")
        let id = UInt8(truncatingIfNeeded: recoveryId) ^ (flipped ? 1 : 0)
        precondition(id <= 1, "unexpected recovery id")
        guard let result = try? RecoverableSignature(r: r, s: lowS, recoveryId: id) else {
            preconditionFailure("recovery id checked above")
        }
        return result
    }

    /// Calls `body` with the 32 raw secret bytes.
    ///
    /// - Warning: Dangerous. This exists for keystore encryption and similar code that must
    ///   feed the key to another cryptographic primitive. The view is valid only during `body`;
    ///   never copy the bytes into ordinary memory, log them or let them escape.
    public func withUnsafeSecretBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try secret.withUnsafeBytes(body)
    }

    /// Decodes the trimmed `0x` + 64 hex digits into `out` (32 bytes).
    private static func decodeHex(_ text: String, into out: UnsafeMutableRawBufferPointer) throws(KeyError) {
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, isWhitespace(utf8[start]) { start = utf8.index(after: start) }
        while end > start, isWhitespace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        let body = utf8[start..<end]
        guard body.count == 66 else { throw .invalidHex }
        var i = body.startIndex
        guard body[i] == 0x30 else { throw .invalidHex }
        i = body.index(after: i)
        guard body[i] == 0x78 || body[i] == 0x58 else { throw .invalidHex }
        i = body.index(after: i)
        for k in 0..<32 {
            guard let high = Hex.nibble(body[i]) else { throw .invalidHex }
            i = body.index(after: i)
            guard let low = Hex.nibble(body[i]) else { throw .invalidHex }
            i = body.index(after: i)
            out[k] = high << 4 | low
        }
    }

    /// ASCII space, tab, LF, VT, FF, CR.
    private static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || (0x09...0x0d).contains(c)
    }
}

extension PrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `PrivateKey(address: 0x…)`; never the key.
    public var description: String { "PrivateKey(address: \(address.checksummed))" }

    /// The same redacted form as ``description``.
    public var debugDescription: String { description }

    /// A mirror that shows only the address.
    public var customMirror: Mirror {
        Mirror(self, children: ["address": address.checksummed], displayStyle: .class)
    }
}
