import EthereumPrimitives
import Secp256k1
import SignerKitTestSupport
import Testing

/// The strict DER readers a cloud KMS's answers go through: SubjectPublicKeyInfo and ECDSA-Sig-Value.
@Suite("DER: SubjectPublicKeyInfo and ECDSA signatures, strictly")
struct DEREncodingTests {
    static let key = PrivateKey.generate()

    /// A secp256k1 SubjectPublicKeyInfo of `point` with `curve` as the named curve's OID content.
    static func spki(point: [UInt8], curve: [UInt8] = [0x2B, 0x81, 0x04, 0x00, 0x0A]) -> [UInt8] {
        let algorithm: [UInt8] =
            [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, UInt8(curve.count)] + curve
        let bits: [UInt8] = [0x03, UInt8(point.count + 1), 0x00] + point
        let body = [0x30, UInt8(algorithm.count)] + algorithm + bits
        return [0x30, UInt8(body.count)] + body
    }

    @Test("a secp256k1 SubjectPublicKeyInfo gives the key; every deviation is refused with its offset")
    func subjectPublicKeyInfo() throws {
        let publicKey = Self.key.publicKey
        let good = Self.spki(point: publicKey.uncompressed)
        #expect(try PublicKey(subjectPublicKeyInfo: good) == publicKey)

        #expect(throws: DERError.trailingBytes(offset: good.count)) { try PublicKey(subjectPublicKeyInfo: good + [0]) }
        #expect(throws: DERError.truncated(offset: 0)) { try PublicKey(subjectPublicKeyInfo: Array(good.dropLast())) }
        let p256 = Self.spki(point: publicKey.uncompressed, curve: [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
        #expect(throws: DERError.notSecp256k1(algorithm: "1.2.840.10045.2.1", curve: "1.2.840.10045.3.1.7")) {
            try PublicKey(subjectPublicKeyInfo: p256)
        }
        let compressed = Self.spki(point: publicKey.compressed)
        #expect(throws: DERError.invalidPoint(offset: 20)) { try PublicKey(subjectPublicKeyInfo: compressed) }
        var offCurve = good
        offCurve[offCurve.count - 1] ^= 1
        #expect(throws: DERError.invalidPoint(offset: 20)) { try PublicKey(subjectPublicKeyInfo: offCurve) }
        // The outer length in long form although it fits in one byte: not DER.
        let longForm = [0x30, 0x81] + good.dropFirst()
        #expect(throws: DERError.nonMinimalLength(offset: 1)) { try PublicKey(subjectPublicKeyInfo: longForm) }
        var unusedBits = good
        unusedBits[22] = 1
        #expect(throws: DERError.invalidPoint(offset: 20)) { try PublicKey(subjectPublicKeyInfo: unusedBits) }
        #expect(throws: DERError.unexpectedTag(offset: 0, expected: 0x30, found: 0x31)) {
            try PublicKey(subjectPublicKeyInfo: [0x31] + good.dropFirst())
        }
    }

    /// `SEQUENCE { INTEGER r, INTEGER s }` with the integers' contents as given.
    static func signature(_ r: [UInt8], _ s: [UInt8]) -> [UInt8] {
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
        return [0x30, UInt8(body.count)] + body
    }

    @Test("ECDSA-Sig-Value: minimal positive integers of up to 32 bytes only")
    func signatures() throws {
        let high: [UInt8] = [0x00, 0x80] + [UInt8](repeating: 0x11, count: 31)
        let short: [UInt8] = [0x01, 0x02]
        let (r, s) = try ECDSA.signatureComponents(der: Self.signature(high, short))
        #expect(r.bytes == Array(high.dropFirst()))
        #expect(s.bytes == [UInt8](repeating: 0, count: 30) + short)

        #expect(throws: DERError.invalidInteger(offset: 2)) {
            try ECDSA.signatureComponents(der: Self.signature([0x00, 0x01], short))  // a needless leading zero
        }
        #expect(throws: DERError.invalidInteger(offset: 2)) {
            try ECDSA.signatureComponents(der: Self.signature([0x80, 0x01], short))  // negative
        }
        #expect(throws: DERError.invalidInteger(offset: 2)) {
            try ECDSA.signatureComponents(der: Self.signature([0x01] + high, short))  // 34 bytes
        }
        #expect(throws: DERError.invalidInteger(offset: 2)) {
            try ECDSA.signatureComponents(der: Self.signature([], short))  // empty
        }
        let good = Self.signature(high, short)
        #expect(throws: DERError.trailingBytes(offset: good.count)) {
            try ECDSA.signatureComponents(der: good + [0x00])
        }
        #expect(throws: DERError.trailingBytes(offset: good.count)) {
            let body = Array(good.dropFirst(2)) + [0x02, 0x01, 0x01]
            _ = try ECDSA.signatureComponents(der: [0x30, UInt8(body.count)] + body)
        }
        #expect(throws: DERError.truncated(offset: 0)) { try ECDSA.signatureComponents(der: Array(good.dropLast())) }
    }
}
