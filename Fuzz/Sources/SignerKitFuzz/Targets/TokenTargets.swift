import EthereumPrimitives
import PKCS11Signer
import Secp256k1

/// What a PKCS#11 token returns as attributes: `CKA_EC_PARAMS` and `CKA_EC_POINT`.
enum TokenTargets {
    static let pkcs11Attributes = FuzzTarget(
        name: "pkcs11-attributes",
        summary: "CKA_EC_POINT and CKA_EC_PARAMS from a token: a point that parses re-wraps and re-parses to the "
            + "same key; curve names are bounded"
    ) { bytes in
        let name = ECEncoding.curveName(bytes)
        // An OID's dotted form is bounded by its one-byte DER length; any other text is abbreviated.
        FuzzCheck.expect(name.utf8.count <= FuzzCheck.maxDescriptionLength, "a curve name of \(name.count) characters")
        if let dotted = ECEncoding.oidString(bytes) {
            FuzzCheck.expect(dotted.split(separator: ".").count >= 2, "an OID with fewer than two arcs")
        }
        if let inner = ECEncoding.unwrapOctetString(bytes) {
            FuzzCheck.expect(inner.count <= bytes.count - 2, "an octet string longer than its encoding")
        }
        guard let key = ECEncoding.parsePoint(bytes) else { return }
        let wrapped = ECEncoding.wrapPoint(key)
        FuzzCheck.expect(ECEncoding.parsePoint(wrapped) == key, "a re-wrapped point parses to another key")
        FuzzCheck.expect(ECEncoding.parsePoint(key.uncompressed) == key, "the raw point parses to another key")
    }

    static let kmsDER = FuzzTarget(
        name: "kms-der",
        summary: "what a cloud KMS returns as DER: a SubjectPublicKeyInfo and an ECDSA-Sig-Value, strictly; a parse "
            + "that succeeds spans exactly a secp256k1 key's or a signature's length; errors are bounded"
    ) { bytes in
        do {
            _ = try PublicKey(subjectPublicKeyInfo: bytes)
            FuzzCheck.expect(bytes.count == 88, "a SubjectPublicKeyInfo of \(bytes.count) bytes parsed")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
        do {
            let (r, s) = try ECDSA.signatureComponents(der: bytes)
            FuzzCheck.expect(bytes.count >= 8 && bytes.count <= 72, "a signature of \(bytes.count) bytes parsed")
            _ = ECDSA.normalize(r: r, s: s)
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }
}
