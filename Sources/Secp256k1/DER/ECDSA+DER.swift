import EthereumPrimitives

extension ECDSA {
    /// Reads a DER `ECDSA-Sig-Value` (`SEQUENCE { INTEGER r, INTEGER s }`, RFC 3279), as a cloud KMS returns a
    /// signature, into 32-byte r and s.
    ///
    /// Strict DER: minimal lengths and integers, positive values of at most 32 bytes, nothing after the
    /// sequence. Range (1..<n) and low s are not checked here: ``recoverableSignature(prehash:r:s:expected:)``
    /// does that.
    ///
    /// - Throws: ``DERError``, naming the byte offset.
    public static func signatureComponents(der: [UInt8]) throws(DERError) -> (r: Bytes32, s: Bytes32) {
        var outer = DERReader(der)
        var sequence = try outer.sequence()
        try outer.expectEnd()
        let r = try sequence.unsignedInteger32()
        let s = try sequence.unsignedInteger32()
        try sequence.expectEnd()
        return (r, s)
    }
}
