import CSecp256k1
import EthereumPrimitives
import Synchronization

/// Finds the recovery ids of many signatures made by one known key: what a signer whose key
/// only returns raw r‖s (a PKCS#11 token) needs for every signature.
///
/// Each answer is the one ``Secp256k1/recoveryId(prehash:r:s:expected:)`` gives: s is brought to
/// low s first, and an id is only returned when ecrecover of the final signature (r, low s, id)
/// yields ``publicKey``.
///
/// That holds exactly when the point R = (z/s)·G + (r/s)·Q (z the digest, Q the key) has
/// x-coordinate r, and the id is the parity of R's y. For its first
/// ``precomputeAfter`` signatures the solver computes R with one libsecp256k1 recovery, like
/// ``Secp256k1/recoveryId(prehash:r:s:expected:)``. Then it precomputes multiples of Q
/// (88 KB, about 1,400 point additions) and computes R as one sum of at most 76 precomputed
/// points (43 multiples of Q and 33 of G, from a table of 270 KB shared by the process and built
/// once), in about 60% of a recovery's time. A long-lived signer pays for the table within a few
/// hundred signatures; one that signs once never builds it.
///
/// Safe to use from any number of threads.
public final class RecoveryIdSolver: Sendable {
    /// The key the signatures must recover to.
    public let publicKey: PublicKey

    /// Signatures solved with a recovery before the key's multiples are precomputed.
    public let precomputeAfter: Int

    /// Signatures solved so far.
    private let solved = Atomic<Int>(0)

    /// Multiples of the key, once built.
    private let keyMultiples = Mutex<PointMultiples?>(nil)

    /// Bits per digit of the key's table: 43 windows of 32 points.
    static let keyWindowWidth = 6

    /// Bits per digit of the generator's table: 33 windows of 128 points.
    static let generatorWindowWidth = 8

    /// Multiples of the generator G, built on first use.
    static let generatorMultiples: PointMultiples = {
        var one = [UInt8](repeating: 0, count: 32)
        one[31] = 1
        var generator = secp256k1_pubkey()
        let created = secp256k1_ec_pubkey_create(SharedContext.shared.raw, &generator, one)
        precondition(created == 1, "secp256k1_ec_pubkey_create(1) failed")
        return PointMultiples(point: generator, windowWidth: generatorWindowWidth)
    }()

    /// A solver for signatures by `publicKey`; the key's multiples are precomputed after
    /// `precomputeAfter` signatures (0: on the first).
    public init(publicKey: PublicKey, precomputeAfter: Int = 128) {
        self.publicKey = publicKey
        self.precomputeAfter = max(0, precomputeAfter)
    }

    /// Whether the key's multiples have been precomputed.
    public var hasPrecomputed: Bool { keyMultiples.withLock { $0 != nil } }

    /// The recovery id of the raw signature r‖s over `prehash`, for the low-s form of s: build
    /// the final signature as r, `Secp256k1.normalize(r:s:).s`, and this id.
    ///
    /// - Throws: ``RecoveryError/invalidSignature`` if r or s is 0 or ≥ n,
    ///   ``RecoveryError/noMatchingRecoveryId`` if neither id recovers ``publicKey``.
    public func recoveryId(prehash: Digest32, r: Bytes32, s: Bytes32) throws(RecoveryError) -> UInt8 {
        try recoverableSignature(prehash: prehash, r: r, s: s).recoveryId
    }

    /// The final signature for the raw signature r‖s over `prehash`: r, s brought to low s, and
    /// the recovery id found as in ``recoveryId(prehash:r:s:)``.
    ///
    /// - Throws: as ``recoveryId(prehash:r:s:)``.
    public func recoverableSignature(prehash: Digest32, r: Bytes32, s: Bytes32) throws(RecoveryError)
        -> RecoverableSignature
    {
        try Secp256k1.recoverableSignature(r: r, s: s) { lowS in
            guard let multiples = multiplesToUse() else {
                return Secp256k1.lowSRecoveryId(prehash: prehash, r: r, s: lowS, expected: publicKey)
            }
            guard case .found(let id) = Self.solve(prehash: prehash, r: r, s: lowS, keyMultiples: multiples) else {
                return nil
            }
            return id
        }
    }

    /// The key's multiples when built; builds them when this is signature number
    /// ``precomputeAfter`` (counting from 0), so exactly one caller does.
    private func multiplesToUse() -> PointMultiples? {
        if let built = keyMultiples.withLock({ $0 }) { return built }
        guard solved.add(1, ordering: .relaxed).oldValue == precomputeAfter else { return nil }
        let built = publicKey.withPoint { PointMultiples(point: $0.pointee, windowWidth: Self.keyWindowWidth) }
        _ = Self.generatorMultiples
        keyMultiples.withLock { $0 = built }
        return built
    }

    /// The id for the low-s signature (r, s), with R = u₁·G + u₂·Q summed from the tables
    /// (u₁ = z/s, u₂ = r/s mod n); r and s in 1..<n.
    static func solve(prehash: Digest32, r: Bytes32, s: Bytes32, keyMultiples: PointMultiples)
        -> Secp256k1.RecoveryIdSearch
    {
        let generatorMultiples = Self.generatorMultiples
        let sInverse = Scalar(s).inverseModOrder
        let z = Scalar(prehash).reducedModOrder
        let u1 = z.isZero ? Scalar.zero : z.multipliedModOrder(by: sInverse)
        let u2 = Scalar(r).multipliedModOrder(by: sInverse)
        let capacity = generatorMultiples.maximumTerms + keyMultiples.maximumTerms
        return withUnsafeTemporaryAllocation(of: secp256k1_pubkey.self, capacity: capacity) { buffer in
            guard let terms = buffer.baseAddress else { return .noMatch }
            var count = 0
            generatorMultiples.appendTerms(of: u1, to: terms, count: &count)
            keyMultiples.appendTerms(of: u2, to: terms, count: &count)
            defer { terms.deinitialize(count: count) }
            return withUnsafeTemporaryAllocation(of: UnsafePointer<secp256k1_pubkey>?.self, capacity: count) {
                pointers in
                for index in 0..<count { pointers[index] = UnsafePointer(terms + index) }
                var point = secp256k1_pubkey()
                // 0: the sum is the point at infinity, which has no x-coordinate to match r.
                guard let first = pointers.baseAddress,
                    secp256k1_ec_pubkey_combine(SharedContext.shared.raw, &point, first, count) == 1
                else { return .noMatch }
                return Secp256k1.recoveryId(of: &point, r: r)
            }
        }
    }
}
