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
        let value = Scalar(s)
        guard Scalar.halfOrder < value, value < Scalar.order else { return (s, false) }
        return (value.negatedModOrder.word, true)
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
    /// form: build the final signature as r, `normalize(r:s:).s`, and this id. An id is only
    /// returned when ecrecover of that final signature yields `expected`.
    ///
    /// Costs about one recovery: the point R = (z/s)·G + (r/s)·Q is computed with a single
    /// libsecp256k1 recovery, and ecrecover(r, s, id) = Q holds exactly when R's x-coordinate is r
    /// and id is the parity of its y. (Trying id 0 and then 1 costs 1.5 recoveries on average.)
    /// For many signatures by one key, ``RecoveryIdSolver`` gives the same answers faster.
    ///
    /// - Throws: ``RecoveryError/invalidSignature`` if r or s is 0 or ≥ n,
    ///   ``RecoveryError/noMatchingRecoveryId`` if neither id recovers `expected`.
    public static func recoveryId(prehash: Digest32, r: Bytes32, s: Bytes32, expected: PublicKey) throws(RecoveryError)
        -> UInt8
    {
        try recoverableSignature(r: r, s: s) { lowS in
            lowSRecoveryId(prehash: prehash, r: r, s: lowS, expected: expected)
        }.recoveryId
    }

    /// The final signature for a raw r‖s: r, s brought to low s, and the id `search` finds for
    /// that low s (nil: none).
    ///
    /// - Throws: ``RecoveryError/invalidSignature`` if r or s is 0 or ≥ n,
    ///   ``RecoveryError/noMatchingRecoveryId`` if `search` finds no id.
    static func recoverableSignature(r: Bytes32, s: Bytes32, search: (Bytes32) -> UInt8?) throws(RecoveryError)
        -> RecoverableSignature
    {
        let (lowS, _) = normalize(r: r, s: s)
        guard isScalarInRange(r), isScalarInRange(lowS) else { throw .invalidSignature }
        guard let id = search(lowS), let signature = try? RecoverableSignature(r: r, s: lowS, recoveryId: id) else {
            throw .noMatchingRecoveryId
        }
        return signature
    }

    /// The recovery id of the low-s signature (r, s) by `expected`: one crafted recovery
    /// (``solveRecoveryId(prehash:r:s:expected:)``), or trial recovery for a key whose
    /// x-coordinate is not below n; nil when no id yields `expected`.
    static func lowSRecoveryId(prehash: Digest32, r: Bytes32, s: Bytes32, expected: PublicKey) -> UInt8? {
        switch solveRecoveryId(prehash: prehash, r: r, s: s, expected: expected) {
        case .found(let id): id
        case .noMatch: nil
        case .notApplicable: trialRecoveryId(prehash: prehash, r: r, s: s, expected: expected)
        }
    }

    /// What ``solveRecoveryId(prehash:r:s:expected:)`` found.
    enum RecoveryIdSearch: Equatable {
        /// ecrecover with this id yields the expected key.
        case found(UInt8)
        /// Neither id 0 nor id 1 yields the expected key.
        case noMatch
        /// The key's x-coordinate is not below n (probability about 2^-128); use trial recovery.
        case notApplicable
    }

    /// The recovery id of the low-s signature (r, s) over `prehash` by `expected` with one
    /// libsecp256k1 recovery; r and s must be in 1..<n.
    ///
    /// With z the digest and Q the key, ecrecover(r, s, id) = r⁻¹·(s·R − z·G) equals Q exactly
    /// when R = (z/s)·G + (r/s)·Q, the point ECDSA verification computes; so the id exists when
    /// that point's x-coordinate is r (as an integer: x = r + n would need id 2 or 3) and it is the
    /// parity of its y. libsecp256k1 computes u·G + v·Q as the recovery of a signature whose r
    /// is Q's own x-coordinate q (with Q's y parity as recovery id): that recovery returns
    /// q⁻¹·(s'·Q − z'·G), so s' = q·r/s and z' = −q·z/s give the point.
    static func solveRecoveryId(prehash: Digest32, r: Bytes32, s: Bytes32, expected: PublicKey) -> RecoveryIdSearch {
        let (x, y) = expected.coordinates
        let q = Scalar(x)
        guard q.isValidNonzero else { return .notApplicable }
        let rValue = Scalar(r)
        let sValue = Scalar(s)
        guard rValue.isValidNonzero, sValue.isValidNonzero else { return .noMatch }
        let sInverse = sValue.inverseModOrder
        let sPrime = q.multipliedModOrder(by: rValue).multipliedModOrder(by: sInverse)
        let z = Scalar(prehash).reducedModOrder
        let zPrime =
            z.isZero ? Scalar.zero : q.multipliedModOrder(by: z).multipliedModOrder(by: sInverse).negatedModOrder
        let context = SharedContext.shared.raw
        var parsed = secp256k1_ecdsa_recoverable_signature()
        let ok = withCompact(r: x, s: sPrime.word) { compact in
            secp256k1_ecdsa_recoverable_signature_parse_compact(context, &parsed, compact, Int32(y[31] & 1))
        }
        guard ok == 1 else { return .noMatch }
        var point = secp256k1_pubkey()
        let recovered = zPrime.word.withUnsafeBytes { message in
            secp256k1_ecdsa_recover(context, &point, &parsed, message.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        // The point at infinity (no recovery) has no x-coordinate, so it matches no r.
        guard recovered == 1 else { return .noMatch }
        return recoveryId(of: &point, r: r)
    }

    /// For the point R of a verification: the parity of its y when its x-coordinate is r (as an
    /// integer), else ``RecoveryIdSearch/noMatch``.
    static func recoveryId(of point: inout secp256k1_pubkey, r: Bytes32) -> RecoveryIdSearch {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65) { buffer in
            var length = 65
            let serialized = secp256k1_ec_pubkey_serialize(
                SharedContext.shared.raw, buffer.baseAddress!, &length, &point, UInt32(SECP256K1_EC_UNCOMPRESSED))
            guard serialized == 1, length == 65 else { return .noMatch }
            let matches = r.withUnsafeBytes { rBytes in
                rBytes.elementsEqual(UnsafeBufferPointer(rebasing: buffer[1..<33]))
            }
            return matches ? .found(buffer[64] & 1) : .noMatch
        }
    }

    /// The recovery id of the low-s signature (r, s) by trying ecrecover with id 0 and then 1;
    /// `nil` when neither yields `expected`.
    static func trialRecoveryId(prehash: Digest32, r: Bytes32, s: Bytes32, expected: PublicKey) -> UInt8? {
        for id: UInt8 in 0...1 {
            guard let candidate = try? RecoverableSignature(r: r, s: s, recoveryId: id) else { continue }
            if let key = try? recover(prehash: prehash, signature: candidate), key == expected { return id }
        }
        return nil
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
        Scalar(value).isValidNonzero
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

}
