import CSecp256k1
import EthereumPrimitives
import Testing

@testable import Secp256k1

/// `Secp256k1.recoveryId` finds the id with one recovery (R = (z/s)·G + (r/s)·Q); these tests
/// check it against plain ecrecover, for both ids, high-s input, awkward digests, keys of every
/// kind (including one whose x-coordinate is not below n) and corrupted signatures.
@Suite struct RecoveryIdTests {
    static let key = try! PrivateKey(hex: "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")

    /// A pseudo-random word: keccak256 of a label.
    static func word(_ label: String) -> Bytes32 { Keccak256.hash(utf8: label) }

    /// A pseudo-random scalar in 1..<n.
    static func scalar(_ label: String) -> Scalar {
        var value = Scalar(word(label)).reducedModOrder
        if value.isZero { value = .one }
        return value
    }

    /// The id checked the slow, obvious way: ecrecover of the final low-s signature is the key.
    static func expectRecovers(
        _ id: UInt8, prehash: Digest32, r: Bytes32, s: Bytes32, key: PublicKey,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let lowS = Secp256k1.normalize(r: r, s: s).s
        let signature = try RecoverableSignature(r: r, s: lowS, recoveryId: id)
        #expect(try Secp256k1.recover(prehash: prehash, signature: signature) == key, sourceLocation: sourceLocation)
    }

    // MARK: scalar arithmetic

    @Test func inverseModOrder() {
        let n = Scalar.order
        var values: [Scalar] = [
            .one, Scalar(2, 0, 0, 0), Scalar(3, 0, 0, 0), Scalar.halfOrder, n.negatedModOrder(of: 1),
            n.negatedModOrder(of: 2), Scalar(0, 0, 0, 1), Scalar(0xFFFF_FFFF_FFFF_FFFF, 0, 0, 0),
            Scalar(0, 0, 0xFFFF_FFFF_FFFF_FFFF, 0x7FFF_FFFF_FFFF_FFFF),
        ]
        values += (0..<200).map { Self.scalar("inverse \($0)") }
        for value in values {
            let inverse = value.inverseModOrder
            #expect(inverse.isValidNonzero)
            #expect(value.multipliedModOrder(by: inverse) == .one, "\(value.word.hex)")
            #expect(inverse.inverseModOrder == value)
        }
        #expect(Scalar.one.inverseModOrder == .one)
        // (n−1)² = 1, so n−1 is its own inverse.
        #expect(n.negatedModOrder(of: 1).inverseModOrder == n.negatedModOrder(of: 1))
    }

    @Test func scalarWordsAndReduction() {
        #expect(Scalar.order.word == Secp256k1Order.order.word)
        #expect(Scalar.halfOrder.word == Secp256k1Order.halfOrder.word)
        for i in 0..<32 {
            let word = Self.word("round trip \(i)")
            #expect(Scalar(word).word == word)
        }
        #expect(Scalar.order.reducedModOrder == .zero)
        // (2^256 − 1) − n = 0x1_4551231950b75fc4_402da1732fc9bebe
        #expect(Scalar(UInt256.max.word).reducedModOrder == Scalar(0x402D_A173_2FC9_BEBE, 0x4551_2319_50B7_5FC4, 1, 0))
        #expect(Scalar.halfOrder.reducedModOrder == .halfOrder)
        #expect(!Scalar.zero.isValidNonzero && !Scalar.order.isValidNonzero && Scalar.one.isValidNonzero)
    }

    // MARK: recovery ids

    @Test func agreesWithTrialRecoveryForBothIds() throws {
        var seen = Set<UInt8>()
        let keys = [Self.key] + (0..<6).map { _ in PrivateKey.generate() }
        for (k, key) in keys.enumerated() {
            for i in 0..<24 {
                let digest = Self.word("agree \(k) \(i)")
                let signature = key.sign(prehash: digest)
                let id = try Secp256k1.recoveryId(
                    prehash: digest, r: signature.r, s: signature.s, expected: key.publicKey)
                #expect(id == signature.recoveryId)
                #expect(
                    Secp256k1.trialRecoveryId(prehash: digest, r: signature.r, s: signature.s, expected: key.publicKey)
                        == id)
                #expect(
                    Secp256k1.solveRecoveryId(prehash: digest, r: signature.r, s: signature.s, expected: key.publicKey)
                        == .found(id))
                // The token may return the high-s twin; the id is for the normalised form.
                let high = try SignatureTests.highSVariant(signature)
                #expect(
                    try Secp256k1.recoveryId(prehash: digest, r: high.r, s: high.s, expected: key.publicKey) == id)
                seen.insert(id)
            }
        }
        #expect(seen == [0, 1])
    }

    @Test func awkwardDigests() throws {
        let digests: [Digest32] = [
            .zero, Secp256k1Order.order.word, UInt256.max.word, UInt256(1).word, Secp256k1Order.halfOrder.word,
        ]
        for digest in digests {
            let signature = Self.key.sign(prehash: digest)
            let id = try Secp256k1.recoveryId(
                prehash: digest, r: signature.r, s: signature.s, expected: Self.key.publicKey)
            #expect(id == signature.recoveryId, "\(digest.hex)")
        }
    }

    @Test func forgedSignaturesForArbitraryKeys() throws {
        // Keys with no known private key, including one whose x-coordinate is ≥ n (where the
        // one-recovery shortcut does not apply and trial recovery is used).
        let high = try Self.pointWithXAtLeastOrder()
        #expect(
            Secp256k1.solveRecoveryId(prehash: .zero, r: UInt256(1).word, s: UInt256(1).word, expected: high)
                == .notApplicable)
        let keys = [high, Self.key.publicKey, PrivateKey.generate().publicKey]
        var seen = Set<UInt8>()
        for (k, key) in keys.enumerated() {
            for i in 0..<16 {
                let forged = try Self.forge(key: key, u1: Self.scalar("u1 \(k) \(i)"), u2: Self.scalar("u2 \(k) \(i)"))
                let id = try Secp256k1.recoveryId(prehash: forged.digest, r: forged.r, s: forged.s, expected: key)
                try Self.expectRecovers(id, prehash: forged.digest, r: forged.r, s: forged.s, key: key)
                seen.insert(id)
            }
        }
        #expect(seen == [0, 1])
    }

    @Test func corruptedSignaturesAreRejected() throws {
        for i in 0..<16 {
            let digest = Self.word("corrupt \(i)")
            let signature = Self.key.sign(prehash: digest)
            for (r, s, digest) in Self.corruptions(of: signature, over: digest) {
                #expect(throws: RecoveryError.self) {
                    try Secp256k1.recoveryId(prehash: digest, r: r, s: s, expected: Self.key.publicKey)
                }
                if Secp256k1.isScalarInRange(r) {
                    let lowS = Secp256k1.normalize(r: r, s: s).s
                    #expect(
                        Secp256k1.solveRecoveryId(prehash: digest, r: r, s: lowS, expected: Self.key.publicKey)
                            == .noMatch)
                    #expect(
                        Secp256k1.trialRecoveryId(prehash: digest, r: r, s: lowS, expected: Self.key.publicKey) == nil)
                }
            }
        }
        // r = 5 is no point's x-coordinate.
        #expect(throws: RecoveryError.noMatchingRecoveryId) {
            try Secp256k1.recoveryId(
                prehash: Self.word("five"), r: UInt256(5).word, s: UInt256(1).word, expected: Self.key.publicKey)
        }
        // Out of range, for the shortcut's key too.
        #expect(throws: RecoveryError.invalidSignature) {
            try Secp256k1.recoveryId(
                prehash: Self.word("range"), r: Secp256k1Order.order.word, s: UInt256(1).word,
                expected: try Self.pointWithXAtLeastOrder())
        }
    }

    // MARK: helpers

    /// `signature` over `digest` with one flipped bit in s, in r, or in the digest.
    static func corruptions(of signature: RecoverableSignature, over digest: Digest32) -> [(
        r: Bytes32, s: Bytes32, digest: Digest32
    )] {
        var s = signature.s
        s[31] ^= 0x01
        var r = signature.r
        r[7] ^= 0x40
        var otherDigest = digest
        otherDigest[0] ^= 0x80
        return [(signature.r, s, digest), (r, signature.s, digest), (signature.r, signature.s, otherDigest)]
    }

    /// A signature of some digest that ecrecovers to `key`, made without its private key:
    /// R = u1·G + u2·Q, r = x(R), s = r/u2, z = u1·s, so r⁻¹·(s·R − z·G) = Q.
    static func forge(key: PublicKey, u1: Scalar, u2: Scalar) throws -> (digest: Digest32, r: Bytes32, s: Bytes32) {
        let context = try #require(secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)))
        defer { secp256k1_context_destroy(context) }
        var a = secp256k1_pubkey()
        var b = secp256k1_pubkey()
        try u1.word.withUnsafeBytes { bytes in
            try #require(
                secp256k1_ec_pubkey_create(context, &a, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1)
        }
        let encoded = key.uncompressed
        try #require(secp256k1_ec_pubkey_parse(context, &b, encoded, encoded.count) == 1)
        try u2.word.withUnsafeBytes { bytes in
            try #require(
                secp256k1_ec_pubkey_tweak_mul(context, &b, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1)
        }
        var sum = secp256k1_pubkey()
        try withUnsafePointer(to: a) { pa in
            try withUnsafePointer(to: b) { pb in
                let points: [UnsafePointer<secp256k1_pubkey>?] = [pa, pb]
                try #require(secp256k1_ec_pubkey_combine(context, &sum, points, 2) == 1)
            }
        }
        var serialized = [UInt8](repeating: 0, count: 65)
        var length = 65
        try #require(
            secp256k1_ec_pubkey_serialize(context, &serialized, &length, &sum, UInt32(SECP256K1_EC_UNCOMPRESSED)) == 1)
        let rWord = try #require(Bytes32(serialized[1..<33]))
        let r = Scalar(rWord)
        try #require(r.isValidNonzero)  // x(R) ≥ n has probability about 2^-128
        let s = r.multipliedModOrder(by: u2.inverseModOrder)
        let z = u1.multipliedModOrder(by: s)
        return (z.word, rWord, s.word)
    }

    /// A valid public key whose x-coordinate lies in n..<p (the first such x above n).
    static func pointWithXAtLeastOrder() throws -> PublicKey {
        var x = Scalar.order
        for _ in 0..<64 {
            if let key = try? PublicKey(bytes: [0x02] + x.word.bytes) { return key }
            x = x.adding(1)
        }
        throw KeyError.invalidPublicKey
    }
}

extension Scalar {
    /// n − k for a small k.
    func negatedModOrder(of k: UInt64) -> Scalar {
        Scalar(k, 0, 0, 0).negatedModOrder
    }

    /// self + k (no overflow expected).
    func adding(_ k: UInt64) -> Scalar {
        let (sum, carry) = l0.addingReportingOverflow(k)
        return Scalar(sum, carry ? l1 + 1 : l1, l2, l3)
    }
}
