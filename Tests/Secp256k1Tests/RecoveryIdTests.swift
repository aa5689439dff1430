import EthereumPrimitives
import Testing

@testable import Secp256k1

/// `ECDSA.recoveryId` and `recoverableSignature(prehash:r:s:expected:)` find the id by trial
/// recovery; these tests check them against plain ecrecover, for both ids, high-s input, awkward
/// digests, keys without a known private key and corrupted signatures.
@Suite struct RecoveryIdTests {
    /// The vector key (shared with ``SignatureTests``).
    static var key: PrivateKey { SignatureTests.key }

    /// A pseudo-random word: keccak256 of a label.
    static func word(_ label: String) -> Bytes32 { Keccak256.hash(utf8: label) }

    @Test func agreesWithSigningForBothIds() throws {
        var seen = Set<UInt8>()
        let keys = [Self.key] + (0..<6).map { _ in PrivateKey.generate() }
        for (k, key) in keys.enumerated() {
            for i in 0..<24 {
                let digest = Self.word("agree \(k) \(i)")
                let signature = key.sign(prehash: digest)
                let id = try ECDSA.recoveryId(
                    prehash: digest, r: signature.r, s: signature.s, expected: key.publicKey)
                #expect(id == signature.recoveryId)
                #expect(
                    try ECDSA.recoverableSignature(
                        prehash: digest, r: signature.r, s: signature.s, expected: key.publicKey) == signature)
                // The token may return the high-s twin; the id and s are for the normalised form.
                let high = try SignatureTests.highSVariant(signature)
                #expect(
                    try ECDSA.recoveryId(prehash: digest, r: high.r, s: high.s, expected: key.publicKey) == id)
                #expect(
                    try ECDSA.recoverableSignature(prehash: digest, r: high.r, s: high.s, expected: key.publicKey)
                        == signature)
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
            let id = try ECDSA.recoveryId(
                prehash: digest, r: signature.r, s: signature.s, expected: Self.key.publicKey)
            #expect(id == signature.recoveryId, "\(digest.hex)")
        }
    }

    @Test func keysWithoutAKnownPrivateKey() throws {
        // Any (r, s, id) over any digest recovers to some key; nobody knows its private key, and
        // the id found for it must be the one it was recovered with.
        var seen = Set<UInt8>()
        for i in 0..<32 {
            let digest = Self.word("forged digest \(i)")
            let id = UInt8(i & 1)
            let candidate = try RecoverableSignature(
                r: Self.key.sign(prehash: Self.word("forged r \(i)")).r,
                s: Self.key.sign(prehash: Self.word("forged s \(i)")).s, recoveryId: id)
            guard let key = try? ECDSA.recover(prehash: digest, signature: candidate) else { continue }
            #expect(try ECDSA.recoveryId(prehash: digest, r: candidate.r, s: candidate.s, expected: key) == id)
            seen.insert(id)
        }
        #expect(seen == [0, 1])
    }

    @Test func corruptedSignaturesAreRejected() throws {
        for i in 0..<16 {
            let digest = Self.word("corrupt \(i)")
            let signature = Self.key.sign(prehash: digest)
            for (r, s, digest) in Self.corruptions(of: signature, over: digest) {
                #expect(throws: RecoveryError.self) {
                    try ECDSA.recoveryId(prehash: digest, r: r, s: s, expected: Self.key.publicKey)
                }
            }
        }
        // r = 5 is no point's x-coordinate.
        #expect(throws: RecoveryError.noMatchingRecoveryId) {
            try ECDSA.recoveryId(
                prehash: Self.word("five"), r: UInt256(5).word, s: UInt256(1).word, expected: Self.key.publicKey)
        }
        // Out of range.
        for (r, s) in [
            (Secp256k1Order.order.word, UInt256(1).word), (UInt256(1).word, Secp256k1Order.order.word),
            (Bytes32.zero, UInt256(1).word), (UInt256(1).word, Bytes32.zero),
        ] {
            #expect(throws: RecoveryError.invalidSignature) {
                try ECDSA.recoveryId(prehash: Self.word("range"), r: r, s: s, expected: Self.key.publicKey)
            }
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
}
