import CSecp256k1
import EthereumPrimitives
import Testing

@testable import Secp256k1

/// `RecoveryIdSolver` computes R = (z/s)·G + (r/s)·Q as a sum of precomputed multiples. These
/// tests check the tables against libsecp256k1's own scalar multiplication and every answer
/// against plain ecrecover, across the switch from recovery to tables and under concurrency.
@Suite struct RecoveryIdSolverTests {
    /// The private scalar of `RecoveryIdTests.key`.
    static let keyScalar = Scalar(
        UInt256(limbs: (0xE468_D01A_3F36_2318, 0xFE51_2961_7082_792A, 0x6231_471B_5DBB_6204, 0x4C08_83A6_9102_937D)))

    /// u·P by libsecp256k1's scalar multiplication (`secp256k1_ec_pubkey_tweak_mul`), u in 1..<n.
    static func multiple(_ point: secp256k1_pubkey, by u: Scalar) throws -> secp256k1_pubkey {
        var result = point
        let ok = secp256k1_ec_pubkey_tweak_mul(SharedContext.shared.raw, &result, u.word.bytes)
        try #require(ok == 1)
        return result
    }

    /// The point in uncompressed form, for comparisons.
    static func encoded(_ point: secp256k1_pubkey) -> [UInt8] {
        var point = point
        var bytes = [UInt8](repeating: 0, count: 65)
        var length = 65
        _ = secp256k1_ec_pubkey_serialize(
            SharedContext.shared.raw, &bytes, &length, &point, UInt32(SECP256K1_EC_UNCOMPRESSED))
        return bytes
    }

    /// The sum of the terms `table` gives for `u`; nil for the point at infinity (no terms).
    static func sumOfTerms(_ table: PointMultiples, _ u: Scalar) -> secp256k1_pubkey? {
        sumOfTerms([(table, u)])
    }

    /// The sum of the terms each table gives for its scalar; nil for the point at infinity.
    static func sumOfTerms(_ parts: [(table: PointMultiples, scalar: Scalar)]) -> secp256k1_pubkey? {
        let capacity = parts.reduce(0) { $0 + $1.table.maximumTerms }
        return withUnsafeTemporaryAllocation(of: secp256k1_pubkey.self, capacity: capacity) { buffer in
            guard let terms = buffer.baseAddress else { return nil }
            var count = 0
            for part in parts { part.table.appendTerms(of: part.scalar, to: terms, count: &count) }
            defer { terms.deinitialize(count: count) }
            guard count > 0 else { return nil }
            let pointers = (0..<count).map { Optional(UnsafePointer(terms + $0)) }
            var sum = secp256k1_pubkey()
            let ok = secp256k1_ec_pubkey_combine(SharedContext.shared.raw, &sum, pointers, count)
            return ok == 1 ? sum : nil
        }
    }

    static let generator: secp256k1_pubkey = RecoveryIdSolver.generatorMultiples.entry(window: 0, multiple: 1)

    static func point(of key: PublicKey) -> secp256k1_pubkey { key.withPoint { $0.pointee } }

    // MARK: tables

    @Test func generatorTableStartsAtG() throws {
        let g = try PublicKey(
            hex: "0x0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
                + "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")
        #expect(Self.encoded(Self.generator) == g.uncompressed)
    }

    @Test(arguments: [2, 3, 5, 6, 7, 8])
    func entriesAreTheirMultiples(windowWidth: Int) throws {
        let key = Self.point(of: RecoveryIdTests.key.publicKey)
        let table = PointMultiples(point: key, windowWidth: windowWidth)
        #expect(table.windowCount * windowWidth >= 257)
        let half = 1 << (windowWidth - 1)
        var windowBase = Scalar.one  // 2^(w·window) mod n
        for window in 0..<table.windowCount {
            for multiple in Set([1, 2, half / 2 + 1, half - 1, half]) where multiple >= 1 {
                let expected = try Self.multiple(
                    key, by: windowBase.multipliedModOrder(by: Scalar(UInt64(multiple), 0, 0, 0)))
                #expect(
                    Self.encoded(table.entry(window: window, multiple: multiple)) == Self.encoded(expected),
                    "window \(window), multiple \(multiple)")
            }
            windowBase = windowBase.multipliedModOrder(by: Scalar(UInt64(1) << UInt64(windowWidth), 0, 0, 0))
        }
    }

    @Test(arguments: [2, 5, 6, 8])
    func termsSumToTheScalarMultiple(windowWidth: Int) throws {
        let key = Self.point(of: RecoveryIdTests.key.publicKey)
        let table = PointMultiples(point: key, windowWidth: windowWidth)
        let n = Scalar.order
        var scalars: [Scalar] = [
            .one, Scalar(2, 0, 0, 0), .halfOrder, n.negatedModOrder(of: 1), n.negatedModOrder(of: 2),
            Scalar(0, 0, 0, 1 << 63),  // 2^255: the top digit carries
            Scalar(0x8080_8080_8080_8080, 0x8080_8080_8080_8080, 0x8080_8080_8080_8080, 0x0080_8080_8080_8080),
            Scalar(0x7F7F_7F7F_7F7F_7F7F, 0x7F7F_7F7F_7F7F_7F7F, 0x7F7F_7F7F_7F7F_7F7F, 0x7F7F_7F7F_7F7F_7F7F),
            Scalar(0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0, 0),
            Scalar(0xAAAA_AAAA_AAAA_AAAA, 0x5555_5555_5555_5555, 0xAAAA_AAAA_AAAA_AAAA, 0x5555_5555_5555_5555),
        ]
        scalars += (0..<40).map { RecoveryIdTests.scalar("terms \(windowWidth) \($0)") }
        for u in scalars {
            let sum = try #require(Self.sumOfTerms(table, u), "\(u.word.hex)")
            #expect(Self.encoded(sum) == Self.encoded(try Self.multiple(key, by: u)), "\(u.word.hex)")
        }
        #expect(Self.sumOfTerms(table, .zero) == nil)
    }

    @Test func scalarBits() {
        let value = Scalar(0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, 0x0F0F_0F0F_0F0F_0F0F, 0x8000_0000_0000_0001)
        #expect(value.bits(at: 0, width: 8) == 0xEF)
        #expect(value.bits(at: 60, width: 8) == 0x00)  // 0x0 from l0's top nibble, 0x0 from l1's bottom
        #expect(value.bits(at: 56, width: 12) == 0x001)
        #expect(value.bits(at: 62, width: 6) == 0b000000)
        #expect(value.bits(at: 64, width: 16) == 0x3210)
        #expect(value.bits(at: 252, width: 8) == 0x8)  // past bit 255 reads as zero
        #expect(value.bits(at: 255, width: 1) == 1)
        #expect(value.bits(at: 256, width: 8) == 0)
        #expect(value.bits(at: 192, width: 1) == 1)
    }

    // MARK: answers

    /// Signatures by several keys (both ids, high-s twins) answered by a solver that builds its
    /// tables at once, one that never does and the one-shot `Secp256k1.recoveryId`.
    @Test func agreesWithEcrecover() throws {
        let keys = [RecoveryIdTests.key] + (0..<4).map { _ in PrivateKey.generate() }
        var seen = Set<UInt8>()
        for (k, key) in keys.enumerated() {
            let tables = RecoveryIdSolver(publicKey: key.publicKey, precomputeAfter: 0)
            let recoveries = RecoveryIdSolver(publicKey: key.publicKey, precomputeAfter: .max)
            for i in 0..<24 {
                let digest = RecoveryIdTests.word("solver \(k) \(i)")
                let signature = key.sign(prehash: digest)
                let high = try SignatureTests.highSVariant(signature)
                for (r, s) in [(signature.r, signature.s), (high.r, high.s)] {
                    let id = try tables.recoveryId(prehash: digest, r: r, s: s)
                    #expect(id == signature.recoveryId)
                    #expect(try recoveries.recoveryId(prehash: digest, r: r, s: s) == id)
                    try RecoveryIdTests.expectRecovers(id, prehash: digest, r: r, s: s, key: key.publicKey)
                }
                seen.insert(signature.recoveryId)
            }
            #expect(tables.hasPrecomputed)
            #expect(!recoveries.hasPrecomputed)
        }
        #expect(seen == [0, 1])
    }

    /// Forged signatures for keys without a private key, including one whose x-coordinate is ≥ n
    /// (the one-recovery shortcut does not apply to it; the tables do).
    @Test func forgedSignaturesForArbitraryKeys() throws {
        let keys = [try RecoveryIdTests.pointWithXAtLeastOrder(), PrivateKey.generate().publicKey]
        for (k, key) in keys.enumerated() {
            let solver = RecoveryIdSolver(publicKey: key, precomputeAfter: 0)
            let recoveries = RecoveryIdSolver(publicKey: key, precomputeAfter: .max)
            for i in 0..<16 {
                let forged = try RecoveryIdTests.forge(
                    key: key, u1: RecoveryIdTests.scalar("solver u1 \(k) \(i)"),
                    u2: RecoveryIdTests.scalar("solver u2 \(k) \(i)"))
                let id = try solver.recoveryId(prehash: forged.digest, r: forged.r, s: forged.s)
                try RecoveryIdTests.expectRecovers(id, prehash: forged.digest, r: forged.r, s: forged.s, key: key)
                // Before any precomputation too (for x ≥ n, through trial recovery).
                #expect(try recoveries.recoveryId(prehash: forged.digest, r: forged.r, s: forged.s) == id)
                #expect(try Secp256k1.recoveryId(prehash: forged.digest, r: forged.r, s: forged.s, expected: key) == id)
            }
        }
    }

    @Test func awkwardDigests() throws {
        let solver = RecoveryIdSolver(publicKey: RecoveryIdTests.key.publicKey, precomputeAfter: 0)
        let digests: [Digest32] = [
            .zero, Secp256k1Order.order.word, UInt256.max.word, UInt256(1).word, Secp256k1Order.halfOrder.word,
        ]
        for digest in digests {
            let signature = RecoveryIdTests.key.sign(prehash: digest)
            #expect(try solver.recoveryId(prehash: digest, r: signature.r, s: signature.s) == signature.recoveryId)
        }
    }

    @Test func corruptedSignaturesAreRejected() throws {
        let key = RecoveryIdTests.key
        let solver = RecoveryIdSolver(publicKey: key.publicKey, precomputeAfter: 0)
        let other = RecoveryIdSolver(publicKey: PrivateKey.generate().publicKey, precomputeAfter: 0)
        for i in 0..<16 {
            let digest = RecoveryIdTests.word("solver corrupt \(i)")
            let signature = key.sign(prehash: digest)
            for (r, s, digest) in RecoveryIdTests.corruptions(of: signature, over: digest) {
                #expect(throws: RecoveryError.self) { try solver.recoveryId(prehash: digest, r: r, s: s) }
            }
            // A good signature by another key.
            #expect(throws: RecoveryError.noMatchingRecoveryId) {
                try other.recoveryId(prehash: digest, r: signature.r, s: signature.s)
            }
        }
        #expect(throws: RecoveryError.noMatchingRecoveryId) {
            try solver.recoveryId(prehash: RecoveryIdTests.word("five"), r: UInt256(5).word, s: UInt256(1).word)
        }
        #expect(throws: RecoveryError.invalidSignature) {
            try solver.recoveryId(prehash: .zero, r: Secp256k1Order.order.word, s: UInt256(1).word)
        }
        #expect(throws: RecoveryError.invalidSignature) {
            try solver.recoveryId(prehash: .zero, r: UInt256(1).word, s: Bytes32())
        }
    }

    /// z = −k·r makes (z/s)·G + (r/s)·Q the point at infinity: no id, not a crash.
    @Test func sumAtInfinityIsNoMatch() throws {
        let key = RecoveryIdTests.key.publicKey
        #expect(Self.encoded(try Self.multiple(Self.generator, by: Self.keyScalar)) == key.uncompressed)
        let solver = RecoveryIdSolver(publicKey: key, precomputeAfter: 0)
        let r = RecoveryIdTests.scalar("infinity r")
        let s = RecoveryIdTests.scalar("infinity s")
        let z = Self.keyScalar.multipliedModOrder(by: r).negatedModOrder
        // The tables' sum really is the point at infinity …
        let sInverse = s.inverseModOrder
        let keyTable = PointMultiples(point: Self.point(of: key), windowWidth: RecoveryIdSolver.keyWindowWidth)
        #expect(
            Self.sumOfTerms([
                (RecoveryIdSolver.generatorMultiples, z.multipliedModOrder(by: sInverse)),
                (keyTable, r.multipliedModOrder(by: sInverse)),
            ]) == nil)
        // … and the solver reports no id for it.
        #expect(throws: RecoveryError.noMatchingRecoveryId) {
            try solver.recoveryId(prehash: z.word, r: r.word, s: s.word)
        }
    }

    @Test func switchesToTablesAfterTheConfiguredCount() throws {
        let key = RecoveryIdTests.key
        let solver = RecoveryIdSolver(publicKey: key.publicKey, precomputeAfter: 3)
        for i in 0..<6 {
            #expect(solver.hasPrecomputed == (i > 3))
            let digest = RecoveryIdTests.word("switch \(i)")
            let signature = key.sign(prehash: digest)
            #expect(try solver.recoveryId(prehash: digest, r: signature.r, s: signature.s) == signature.recoveryId)
        }
        #expect(solver.hasPrecomputed)
    }

    @Test func concurrentCallersAcrossTheSwitch() async throws {
        let key = RecoveryIdTests.key
        let solver = RecoveryIdSolver(publicKey: key.publicKey, precomputeAfter: 10)
        let cases = (0..<64).map { i in
            let digest = RecoveryIdTests.word("concurrent \(i)")
            return (digest, key.sign(prehash: digest))
        }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for (digest, signature) in cases {
                group.addTask {
                    (try? solver.recoveryId(prehash: digest, r: signature.r, s: signature.s)) == signature.recoveryId
                        ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(solver.hasPrecomputed)
    }
}
