import CSecp256k1
import EthereumPrimitives

/// Signature recovery, verification and low-s normalisation on secp256k1.
public enum Secp256k1 {
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
        let recovered = prehash.withUnsafeBytes { digest in
            secp256k1_ecdsa_recover(context, &point, &parsed, digest.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard recovered == 1 else { throw .recoveryFailed }
        return PublicKey(point: point)
    }

    /// The address of the key recovered by ``recover(prehash:signature:)``.
    public static func recoverAddress(prehash: Digest32, signature: RecoverableSignature) throws(RecoveryError) -> Address {
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
        let value = UInt256(word: s)
        guard value > Secp256k1Order.halfOrder, value < Secp256k1Order.order else { return (s, false) }
        return (subtract(Secp256k1Order.order, value).word, true)
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

    /// Finds the recovery id for a raw r‖s signature made by `expected`, trying 0 and 1.
    ///
    /// s is normalised first (``normalize(r:s:)``) and the id returned belongs to that low-s
    /// form: build the final signature as r, `normalize(r:s:).s`, and this id.
    ///
    /// - Throws: ``RecoveryError/invalidSignature`` if r or s is 0 or ≥ n,
    ///   ``RecoveryError/noMatchingRecoveryId`` if neither id recovers `expected`.
    public static func recoveryId(prehash: Digest32, r: Bytes32, s: Bytes32, expected: PublicKey) throws(RecoveryError) -> UInt8 {
        let (lowS, _) = normalize(r: r, s: s)
        guard isScalarInRange(r), isScalarInRange(lowS) else { throw .invalidSignature }
        for id: UInt8 in 0...1 {
            guard let candidate = try? RecoverableSignature(r: r, s: lowS, recoveryId: id) else { continue }
            if let key = try? recover(prehash: prehash, signature: candidate), key == expected { return id }
        }
        throw .noMatchingRecoveryId
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
            prehash.withUnsafeBytes { digest in
                secp256k1_ecdsa_verify(context, &parsed, digest.baseAddress!.assumingMemoryBound(to: UInt8.self), point)
            }
        } == 1
    }

    // MARK: helpers

    /// 0 < value < n.
    static func isScalarInRange(_ value: Bytes32) -> Bool {
        let scalar = UInt256(word: value)
        return !scalar.isZero && scalar < Secp256k1Order.order
    }

    /// Calls `body` with the 64 bytes r‖s.
    private static func withCompact<R>(r: Bytes32, s: Bytes32, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            r.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: raw[0..<32]).copyMemory(from: $0) }
            s.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: raw[32..<64]).copyMemory(from: $0) }
            return body(buffer.baseAddress!)
        }
    }

    /// a − b for a ≥ b.
    private static func subtract(_ a: UInt256, _ b: UInt256) -> UInt256 {
        var result = UInt256.zero
        var borrow = false
        let lhs = [a.limbs.0, a.limbs.1, a.limbs.2, a.limbs.3]
        let rhs = [b.limbs.0, b.limbs.1, b.limbs.2, b.limbs.3]
        var out: [UInt64] = [0, 0, 0, 0]
        for i in 0..<4 {
            let (d1, o1) = lhs[i].subtractingReportingOverflow(rhs[i])
            let (d2, o2) = d1.subtractingReportingOverflow(borrow ? 1 : 0)
            out[i] = d2
            borrow = o1 || o2
        }
        precondition(!borrow, "subtract expects a ≥ b")
        result.limbs = (out[0], out[1], out[2], out[3])
        return result
    }
}
