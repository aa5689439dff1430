import EthereumPrimitives
import SignerKitTestSupport
import Testing

@testable import Secp256k1

@Suite struct SignatureTests {
    static let key = TestKeys.walletKey

    /// The high-s twin of a signature: s' = n − s, recovery id flipped (computed independently of `normalize`).
    static func highSVariant(_ signature: RecoverableSignature) throws -> RecoverableSignature {
        let order = Secp256k1Order.order
        // n - s = n + (2^256 - s) mod 2^256
        var limbs = [order.limbs.0, order.limbs.1, order.limbs.2, order.limbs.3]
        let s = UInt256(word: signature.s)
        let sl = [s.limbs.0, s.limbs.1, s.limbs.2, s.limbs.3]
        var borrow: UInt64 = 0
        for i in 0..<4 {
            let (d1, o1) = limbs[i].subtractingReportingOverflow(sl[i])
            let (d2, o2) = d1.subtractingReportingOverflow(borrow)
            limbs[i] = d2
            borrow = (o1 || o2) ? 1 : 0
        }
        let high = UInt256(limbs: (limbs[0], limbs[1], limbs[2], limbs[3])).word
        return try RecoverableSignature(r: signature.r, s: high, recoveryId: signature.recoveryId ^ 1)
    }

    @Test func signaturesAreLowSAndDeterministic() {
        for i in 0..<64 {
            let digest = Keccak256.hash(utf8: "message \(i)")
            let a = Self.key.sign(prehash: digest)
            #expect(a.isLowS)
            #expect(a == Self.key.sign(prehash: digest))
        }
    }

    @Test func highSVariantRecoversAndNormalizes() throws {
        for i in 0..<16 {
            let digest = Keccak256.hash(utf8: "high-s \(i)")
            let low = Self.key.sign(prehash: digest)
            let high = try Self.highSVariant(low)
            #expect(!high.isLowS)
            // ecrecover semantics: the high-s twin recovers the same key.
            #expect(try ECDSA.recover(prehash: digest, signature: high) == Self.key.publicKey)

            let (s, flipped) = ECDSA.normalize(r: high.r, s: high.s)
            #expect(flipped)
            #expect(s == low.s)
            #expect(ECDSA.normalize(high) == low)

            let (same, unchanged) = ECDSA.normalize(r: low.r, s: low.s)
            #expect(!unchanged)
            #expect(same == low.s)
            #expect(ECDSA.normalize(low) == low)

            // Raw r‖s from an HSM: the id found refers to the normalised s.
            #expect(
                try ECDSA.recoveryId(prehash: digest, r: high.r, s: high.s, expected: Self.key.publicKey)
                    == low.recoveryId)
            #expect(
                try ECDSA.recoveryId(prehash: digest, r: low.r, s: low.s, expected: Self.key.publicKey)
                    == low.recoveryId)

            #expect(ECDSA.verify(prehash: digest, r: low.r, s: low.s, publicKey: Self.key.publicKey))
            #expect(!ECDSA.verify(prehash: digest, r: high.r, s: high.s, publicKey: Self.key.publicKey))
        }
    }

    @Test func normalizeBoundaries() {
        let half = Secp256k1Order.halfOrder.word
        #expect(ECDSA.normalize(r: half, s: half) == (half, false))
        let halfPlusOne = Secp256k1Order.halfOrder.adding(1)!.word
        let flipped = ECDSA.normalize(r: half, s: halfPlusOne)
        #expect(flipped.flipped)
        #expect(flipped.s == half)  // n − (⌊n/2⌋+1) = ⌊n/2⌋ for odd n
        let order = Secp256k1Order.order.word
        #expect(ECDSA.normalize(r: half, s: order) == (order, false))
        #expect(ECDSA.normalize(r: half, s: Bytes32.zero) == (Bytes32.zero, false))
    }

    @Test func recoveryIdRejectsOtherKeys() throws {
        let digest = Keccak256.hash(utf8: "other")
        let signature = Self.key.sign(prehash: digest)
        let other = try PrivateKey(hex: "0x0000000000000000000000000000000000000000000000000000000000000001")
        #expect(throws: RecoveryError.noMatchingRecoveryId) {
            try ECDSA.recoveryId(prehash: digest, r: signature.r, s: signature.s, expected: other.publicKey)
        }
        #expect(!ECDSA.verify(prehash: digest, r: signature.r, s: signature.s, publicKey: other.publicKey))
    }

    @Test func invalidScalarsRejected() throws {
        let digest = Keccak256.hash(utf8: "invalid")
        let good = Self.key.sign(prehash: digest)
        let cases = [
            try RecoverableSignature(r: .zero, s: good.s, recoveryId: 0),
            try RecoverableSignature(r: good.r, s: .zero, recoveryId: 0),
            try RecoverableSignature(r: Secp256k1Order.order.word, s: good.s, recoveryId: 0),
            try RecoverableSignature(r: good.r, s: UInt256.max.word, recoveryId: 1),
        ]
        for signature in cases {
            #expect(throws: RecoveryError.invalidSignature) {
                try ECDSA.recover(prehash: digest, signature: signature)
            }
        }
        #expect(throws: RecoveryError.invalidSignature) {
            try ECDSA.recoveryId(prehash: digest, r: .zero, s: good.s, expected: Self.key.publicKey)
        }
    }

    @Test func rWithoutACurvePointFailsRecovery() throws {
        // x = 5 is not the x-coordinate of any secp256k1 point (5³ + 7 = 132 is not a square mod p).
        let r = UInt256(5).word
        let signature = try RecoverableSignature(r: r, s: UInt256(1).word, recoveryId: 0)
        #expect(throws: RecoveryError.recoveryFailed) {
            try ECDSA.recover(prehash: Keccak256.hash(utf8: "x"), signature: signature)
        }
    }

    @Test func concurrentSigningMatchesSerial() async throws {
        let keys =
            try (1...8).map { i in
                try PrivateKey(hex: "0x" + String(repeating: "0", count: 62) + format2(i))
            } + [Self.key]
        let digests = (0..<40).map { Keccak256.hash(utf8: "concurrent \($0)") }
        var expected: [String: RecoverableSignature] = [:]
        for (k, key) in keys.enumerated() {
            for (d, digest) in digests.enumerated() { expected["\(k)-\(d)"] = key.sign(prehash: digest) }
        }
        let results = await withTaskGroup(of: (String, RecoverableSignature, Address?).self) { group in
            for round in 0..<4 {
                for (k, key) in keys.enumerated() {
                    for (d, digest) in digests.enumerated() where (d + round) % 2 == 0 || round < 2 {
                        group.addTask {
                            let signature = key.sign(prehash: digest)
                            let recovered = try? ECDSA.recoverAddress(prehash: digest, signature: signature)
                            return ("\(k)-\(d)", signature, recovered)
                        }
                    }
                }
            }
            var all: [(String, RecoverableSignature, Address?)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count > 1000)
        for (id, signature, recovered) in results {
            #expect(signature == expected[id])
            let k = Int(id.split(separator: "-")[0])!
            #expect(recovered == keys[k].address)
        }
    }

    @Test func concurrentKeyCreationAndGeneration() async {
        let addresses = await withTaskGroup(of: Address.self) { group in
            for _ in 0..<200 { group.addTask { PrivateKey.generate().address } }
            var all = Set<Address>()
            for await address in group { all.insert(address) }
            return all
        }
        #expect(addresses.count == 200)
    }
}

private func format2(_ i: Int) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[i / 16], digits[i % 16]])
}
