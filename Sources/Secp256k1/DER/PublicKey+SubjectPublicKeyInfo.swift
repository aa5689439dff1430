import EthereumPrimitives

extension PublicKey {
    /// `id-ecPublicKey` (1.2.840.10045.2.1), the content of its OBJECT IDENTIFIER.
    static let ecPublicKeyOID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// secp256k1 (1.3.132.0.10), the content of its OBJECT IDENTIFIER.
    static let secp256k1OID: [UInt8] = [0x2B, 0x81, 0x04, 0x00, 0x0A]

    /// Parses a DER `SubjectPublicKeyInfo` (RFC 5480) holding a secp256k1 key, as a cloud KMS returns a
    /// public key: `SEQUENCE { SEQUENCE { id-ecPublicKey, secp256k1 }, BIT STRING { 04‖X‖Y } }`.
    ///
    /// Strict: DER lengths only, the algorithm and the named curve must be exactly these, the point must be
    /// uncompressed and on the curve, and nothing may follow.
    ///
    /// - Throws: ``DERError``, naming the byte offset (or the OIDs of a key on another curve).
    public init(subjectPublicKeyInfo der: [UInt8]) throws(DERError) {
        var outer = DERReader(der)
        var info = try outer.sequence()
        try outer.expectEnd()
        var algorithm = try info.sequence()
        let algorithmOID = try algorithm.objectIdentifier()
        let curveOID: ArraySlice<UInt8>? = algorithm.isAtEnd ? nil : try algorithm.objectIdentifier()
        try algorithm.expectEnd()
        guard algorithmOID.elementsEqual(Self.ecPublicKeyOID), let curveOID, curveOID.elementsEqual(Self.secp256k1OID)
        else {
            throw .notSecp256k1(algorithm: Self.dotted(algorithmOID), curve: curveOID.map(Self.dotted))
        }
        let (start, point) = try info.bitString()
        try info.expectEnd()
        guard point.count == 65, point.first == 0x04, let key = try? PublicKey(bytes: point) else {
            throw .invalidPoint(offset: start)
        }
        self = key
    }

    /// The dotted form of an OBJECT IDENTIFIER's content (`1.2.840.10045.2.1`); `?` for a malformed one.
    static func dotted(_ content: ArraySlice<UInt8>) -> String {
        var parts: [String] = []
        var value: UInt64 = 0
        for byte in content {
            guard value < (1 << 56) else { return "?" }
            value = value << 7 | UInt64(byte & 0x7F)
            guard byte & 0x80 == 0 else { continue }
            if parts.isEmpty {
                let first = min(value / 40, 2)
                parts += [String(first), String(value - first * 40)]
            } else {
                parts.append(String(value))
            }
            value = 0
        }
        return parts.isEmpty || value != 0 ? "?" : parts.joined(separator: ".")
    }
}
