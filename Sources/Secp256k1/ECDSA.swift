import CSecp256k1
import EthereumPrimitives

/// Signature recovery, verification and low-s normalisation on secp256k1.
public enum ECDSA {
    /// Recovers the public key that produced `signature` over `prehash` (Ethereum's `ecrecover`).
    ///
    /// Like `ecrecover`, high-s signatures are accepted and recover their key; use
    /// ``normalize(r:s:)`` or `RecoverableSignature.isLowS` where only the canonical form is
    /// allowed.
    ///
    /// - Throws: ``RecoveryError/invalidSignature`` if r or s is 0 or ≥ n,
    ///   ``RecoveryError/recoveryFailed`` if no point matches r and the recovery id.
    public static func recover(prehash: Digest32, signature: RecoverableSignature) throws(RecoveryError) -> PublicKey {
        guard isScalarInRange(signature.r), isScalarInRange(signature.s) else { throw .invalidSignature }
        let context = SharedContext.shared.raw
        var parsed = secp256k1_ecdsa_recoverable_signature()
        let ok = withCompact(r: signature.r, s: signature.s) { compact in
            secp256k1_ecdsa_recoverable_signature_parse_compact(context, &parsed, compact, Int32(signature.recoveryId))
        }
        guard ok == 1 else { throw .invalidSignature }
        var point = secp256k1_pubkey()
        let recovered = withPointer(to: prehash) { digest in
            secp256k1_ecdsa_recover(context, &point, &parsed, digest)
        }
        guard recovered == 1 else { throw .recoveryFailed }
        return PublicKey(point: point)
    }

    /// The address of the key recovered by ``recover(prehash:signature:)``.
    public static func recoverAddress(prehash: Digest32, signature: RecoverableSignature) throws(RecoveryError)
        -> Address
    {
        try recover(prehash: prehash, signature: signature).address
    }

    /// Brings s into the low half (s ≤ n/2, EIP-2): when s > n/2 it becomes n − s, and `flipped`
    /// tells the caller that the recovery id's parity flips too (recid ^= 1).
    ///
    /// For raw r‖s signatures from sources that may return high s (HSMs via PKCS#11). `r` does
    /// not change under normalisation; it is taken for symmetry with the signature it belongs
    /// to. An s that is 0 or ≥ n is returned unchanged (and rejected later by recovery).
    public static func normalize(r: Bytes32, s: Bytes32) -> (s: Bytes32, flipped: Bool) {
        _ = r
        // libsecp256k1's normalisation, on a signature with r = 1 (s does not depend on r).
        let context = SharedContext.shared.raw
        var one = Bytes32()
        one[31] = 1
        var parsed = secp256k1_ecdsa_signature()
        let ok = withCompact(r: one, s: s) { compact in
            secp256k1_ecdsa_signature_parse_compact(context, &parsed, compact)
        }
        guard ok == 1 else { return (s, false) }  // s ≥ n
        var low = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_normalize(context, &low, &parsed) == 1 else { return (s, false) }
        return (compactS(of: &low), true)
    }

    /// The signature with s normalised to the low half and the recovery id adjusted to match.
    public static func normalize(_ signature: RecoverableSignature) -> RecoverableSignature {
        let (s, flipped) = normalize(r: signature.r, s: signature.s)
        guard flipped else { return signature }
        guard let result = try? RecoverableSignature(r: signature.r, s: s, recoveryId: signature.recoveryId ^ 1) else {
            preconditionFailure("a flipped recovery id stays within 0...1")
        }
        return result
    }

    /// Finds the recovery id for a raw r‖s signature made by `expected`.
    ///
    /// s is normalised first (``normalize(r:s:)``) and the id returned belongs to that low-s
    /// form: build the final signature as r, `normalize(r:s:).s`, and this id, or call
    /// ``recoverableSignature(prehash:r:s:expected:)``. An id is only returned when ecrecover of
    /// that final signature yields `expected`.
    ///
    /// Trial recovery: id 0, and id 1 only when id 0 does not yield `expected` (1.5 recoveries on
    /// average).
    ///
    /// - Throws: ``RecoveryError/invalidSignature`` if r or s is 0 or ≥ n,
    ///   ``RecoveryError/noMatchingRecoveryId`` if neither id recovers `expected`.
    public static func recoveryId(prehash: Digest32, r: Bytes32, s: Bytes32, expected: PublicKey) throws(RecoveryError)
        -> UInt8
    {
        try recoverableSignature(prehash: prehash, r: r, s: s, expected: expected).recoveryId
    }

    /// The final signature for a raw r‖s made by `expected`: r, s brought to low s, and the
    /// recovery id ``recoveryId(prehash:r:s:expected:)`` finds.
    ///
    /// - Throws: ``RecoveryError/invalidSignature`` if r or s is 0 or ≥ n,
    ///   ``RecoveryError/noMatchingRecoveryId`` if neither id recovers `expected`.
    public static func recoverableSignature(prehash: Digest32, r: Bytes32, s: Bytes32, expected: PublicKey)
        throws(RecoveryError) -> RecoverableSignature
    {
        let (lowS, _) = normalize(r: r, s: s)
        guard isScalarInRange(r), isScalarInRange(lowS) else { throw .invalidSignature }
        let (x, y) = expected.coordinates
        for id: UInt8 in 0...1 where recovers(prehash: prehash, r: r, s: lowS, id: id, x: x, y: y) {
            guard let signature = try? RecoverableSignature(r: r, s: lowS, recoveryId: id) else { break }
            return signature
        }
        throw .noMatchingRecoveryId
    }

    /// Whether ecrecover of r‖s with `recoveryId` over `prehash` yields `expected`: one trial of
    /// ``recoverableSignature(prehash:r:s:expected:)``, for callers that run the two trials
    /// apart. s is used as given (normalise first for the low-s form); r or s outside 1..<n never
    /// matches.
    public static func recovers(_ expected: PublicKey, prehash: Digest32, r: Bytes32, s: Bytes32, recoveryId: UInt8)
        -> Bool
    {
        guard recoveryId <= 1, isScalarInRange(r), isScalarInRange(s) else { return false }
        let (x, y) = expected.coordinates
        return recovers(prehash: prehash, r: r, s: s, id: recoveryId, x: x, y: y)
    }

    /// Whether ecrecover of (r, s, id) over `prehash` is the point (x, y); r and s in 1..<n. Compares
    /// coordinates only (no `PublicKey`, no address hash).
    static func recovers(prehash: Digest32, r: Bytes32, s: Bytes32, id: UInt8, x: Bytes32, y: Bytes32) -> Bool {
        let context = SharedContext.shared.raw
        var parsed = secp256k1_ecdsa_recoverable_signature()
        let ok = withCompact(r: r, s: s) { compact in
            secp256k1_ecdsa_recoverable_signature_parse_compact(context, &parsed, compact, Int32(id))
        }
        guard ok == 1 else { return false }
        var point = secp256k1_pubkey()
        let recovered = withPointer(to: prehash) { digest in
            secp256k1_ecdsa_recover(context, &point, &parsed, digest)
        }
        guard recovered == 1 else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65) { buffer in
            guard let base = buffer.baseAddress else { return false }
            var length = 65
            let serialized = secp256k1_ec_pubkey_serialize(
                context, base, &length, &point, UInt32(SECP256K1_EC_UNCOMPRESSED))
            guard serialized == 1, length == 65 else { return false }
            let bytes = UnsafeRawBufferPointer(buffer)
            return x.withUnsafeBytes { bytes[1..<33].elementsEqual($0) }
                && y.withUnsafeBytes { bytes[33..<65].elementsEqual($0) }
        }
    }

    /// Standard ECDSA verification of r‖s over `prehash` against `publicKey`.
    ///
    /// Follows libsecp256k1 and EIP-2: only low-s signatures verify (normalise first to accept
    /// high s). Returns false for r or s out of range.
    public static func verify(prehash: Digest32, r: Bytes32, s: Bytes32, publicKey: PublicKey) -> Bool {
        let context = SharedContext.shared.raw
        var parsed = secp256k1_ecdsa_signature()
        let ok = withCompact(r: r, s: s) { compact in
            secp256k1_ecdsa_signature_parse_compact(context, &parsed, compact)
        }
        guard ok == 1 else { return false }
        return publicKey.withPoint { point in
            withPointer(to: prehash) { digest in
                secp256k1_ecdsa_verify(context, &parsed, digest, point)
            }
        } == 1
    }

    // MARK: helpers

    /// 0 < value < n.
    static func isScalarInRange(_ value: Bytes32) -> Bool {
        let scalar = UInt256(word: value)
        return scalar != .zero && scalar < Secp256k1Order.order
    }

    /// The s half of a compact serialisation of `signature`.
    private static func compactS(of signature: inout secp256k1_ecdsa_signature) -> Bytes32 {
        var compact = (Bytes32(), Bytes32())
        withUnsafeMutablePointer(to: &compact) { pointer in
            UnsafeMutableRawPointer(pointer).withMemoryRebound(to: UInt8.self, capacity: 64) { bytes in
                _ = secp256k1_ecdsa_signature_serialize_compact(SharedContext.shared.raw, bytes, &signature)
            }
        }
        return compact.1
    }

    /// Calls `body` with the 64 bytes r‖s.
    private static func withCompact<R>(r: Bytes32, s: Bytes32, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        withUnsafePointer(to: (r, s)) { pointer in
            UnsafeRawPointer(pointer).withMemoryRebound(to: UInt8.self, capacity: 64, body)
        }
    }

    /// Calls `body` with the 32 bytes of `word`.
    private static func withPointer<R>(to word: Bytes32, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        withUnsafePointer(to: word) { pointer in
            UnsafeRawPointer(pointer).withMemoryRebound(to: UInt8.self, capacity: 32, body)
        }
    }
}
