import CGcrypt
import Foundation
import Secp256k1
import SecureMemory
import SignerKitSupport
import Synchronization

/// An RSA private key held by libgcrypt (in its secure memory, released on deinit) that makes RS256
/// signatures: RSASSA-PKCS1-v1_5 with SHA-256, as a JWT's `RS256` needs. Read from a PKCS#8
/// `-----BEGIN PRIVATE KEY-----` PEM block (what a Google service-account key file holds).
final class RSASigningKey: @unchecked Sendable {
    // The key S-expression is only read after init; the lock keeps libgcrypt calls on it serial.
    private let secret: gcry_sexp_t
    private let lock = Mutex(())
    /// The modulus' length in bytes: every signature has exactly this length.
    let modulusLength: Int

    /// rsaEncryption, 1.2.840.113549.1.1.1.
    private static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]

    /// The key in the PKCS#8 PEM text `pem`.
    ///
    /// - Throws: a reason (never key material) when the text is not one PEM `PRIVATE KEY` block holding a
    ///   consistent RSA key of 2048 bits or more.
    init(pkcs8PEM pem: String) throws(Failure) {
        var der = try Self.pemBlock(pem, label: "PRIVATE KEY")
        defer { der.withUnsafeMutableBytes { MemoryWiping.wipe($0) } }
        var parts: [[UInt8]]
        let algorithm: [UInt8]
        do { (algorithm, parts) = try Self.rsaParameters(pkcs8: der) } catch {
            throw Failure(reason: "not a PKCS#8 RSA key: \(error)")
        }
        defer { for index in parts.indices { parts[index].withUnsafeMutableBytes { MemoryWiping.wipe($0) } } }
        guard algorithm == Self.rsaEncryption else { throw Failure(reason: "the PKCS#8 key is not an RSA key") }
        let (n, e, d, p, q, qInverse) = (parts[0], parts[1], parts[2], parts[3], parts[4], parts[5])
        guard n.count >= 256 else { throw Failure(reason: "the RSA modulus is shorter than 2048 bits") }
        // libgcrypt wants p < q and u = p⁻¹ mod q; PKCS#1 stores qInv = q⁻¹ mod p, which is that u once p and q
        // trade places (OpenSSL's keys, and Google's, have p > q). For a key with p < q, u is computed.
        let (first, second) = Self.isGreater(p, q) ? (q, p) : (p, q)
        guard var u = Self.isGreater(p, q) ? qInverse : Self.inverse(p, modulo: q) else {
            throw Failure(reason: "the RSA key's primes have no inverse")
        }
        defer { u.withUnsafeMutableBytes { MemoryWiping.wipe($0) } }
        var elements = [
            GcryptSexp.list(GcryptSexp.atom("n"), GcryptSexp.unsignedAtom(n)),
            GcryptSexp.list(GcryptSexp.atom("e"), GcryptSexp.unsignedAtom(e)),
            GcryptSexp.list(GcryptSexp.atom("d"), GcryptSexp.unsignedAtom(d)),
            GcryptSexp.list(GcryptSexp.atom("p"), GcryptSexp.unsignedAtom(first)),
            GcryptSexp.list(GcryptSexp.atom("q"), GcryptSexp.unsignedAtom(second)),
            GcryptSexp.list(GcryptSexp.atom("u"), GcryptSexp.unsignedAtom(u)),
        ]
        var text = GcryptSexp.list(
            GcryptSexp.atom("private-key"), GcryptSexp.list([GcryptSexp.atom("rsa")] + elements))
        for index in elements.indices { elements[index].withUnsafeMutableBytes { MemoryWiping.wipe($0) } }
        // From secure memory, libgcrypt keeps the parsed key in secure memory too.
        let secure = SecureBytes(wiping: &text)
        defer { secure.wipe() }
        guard let key = secure.withUnsafeBytes({ GcryptSexp.scan($0) }) else {
            throw Failure(reason: "libgcrypt refused the RSA key")
        }
        guard gcry_pk_testkey(key) == 0 else {
            gcry_sexp_release(key)
            throw Failure(reason: "the RSA key's parameters are inconsistent")
        }
        secret = key
        modulusLength = n.count
    }

    deinit {
        gcry_sexp_release(secret)
    }

    /// The RS256 signature of `message`: PKCS#1 v1.5 over SHA-256(`message`), ``modulusLength`` bytes.
    ///
    /// - Throws: when libgcrypt cannot sign (never expected with a key that passed its test).
    func signRS256(_ message: [UInt8]) throws(Failure) -> [UInt8] {
        let data = GcryptSexp.list(
            GcryptSexp.atom("data"), GcryptSexp.list(GcryptSexp.atom("flags"), GcryptSexp.atom("pkcs1")),
            GcryptSexp.list(GcryptSexp.atom("hash"), GcryptSexp.atom("sha256"), GcryptSexp.atom(SHA256.hash(message))))
        guard let input = data.withUnsafeBytes({ GcryptSexp.scan($0) }) else {
            throw Failure(reason: "libgcrypt refused the data to sign")
        }
        defer { gcry_sexp_release(input) }
        let signature: [UInt8]? = lock.withLock { _ in
            var result: gcry_sexp_t?
            guard gcry_pk_sign(&result, input, secret) == 0, let result else { return nil }
            defer { gcry_sexp_release(result) }
            return GcryptSexp.token(result, "s")
        }
        guard var signature else { throw Failure(reason: "libgcrypt could not sign with the RSA key") }
        while signature.count > modulusLength, signature.first == 0 { signature.removeFirst() }
        guard signature.count <= modulusLength else {
            throw Failure(reason: "libgcrypt returned an oversized signature")
        }
        return [UInt8](repeating: 0, count: modulusLength - signature.count) + signature
    }

    /// Why a key could not be read or used; never key material.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reason.
        let reason: String
        /// The reason.
        var description: String { reason }
    }

    /// The bytes of the one PEM block labelled `label` in `text` (RFC 7468: base64 lines between the
    /// `-----BEGIN label-----` and `-----END label-----` lines).
    static func pemBlock(_ text: String, label: String) throws(Failure) -> [UInt8] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
        else { throw Failure(reason: "no \(begin) … \(end) block") }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: String(body)), !data.isEmpty else {
            throw Failure(reason: "the \(label) block is not base64")
        }
        return [UInt8](data)
    }

    /// The algorithm OID of the PKCS#8 `PrivateKeyInfo` `der` (RFC 5208) and, read as an RSA key (RFC 8017),
    /// its n, e, d, p, q and qInv.
    static func rsaParameters(pkcs8 der: [UInt8]) throws(DERError) -> (algorithm: [UInt8], parameters: [[UInt8]]) {
        var outer = DERReader(der)
        var info = try outer.sequence()
        try outer.expectEnd()
        guard try info.unsignedInteger() == [0] else { throw .invalidInteger(offset: 0) }
        var algorithm = try info.sequence()
        let oid = Array(try algorithm.objectIdentifier())
        if !algorithm.isAtEnd { _ = try algorithm.element(0x05) }
        try algorithm.expectEnd()
        var octets = try info.octetString()
        // Attributes ([0]) may follow the key; they say nothing SignerKit needs.
        var key = try octets.sequence()
        try octets.expectEnd()
        guard try key.unsignedInteger() == [0] else { throw .invalidInteger(offset: 0) }
        var parameters: [[UInt8]] = []
        for _ in 0..<8 { parameters.append(try key.unsignedInteger()) }
        try key.expectEnd()
        // n, e, d, p, q, (dP, dQ skipped), qInv.
        return (oid, [parameters[0], parameters[1], parameters[2], parameters[3], parameters[4], parameters[7]])
    }

    /// `a`⁻¹ mod `m` (big-endian magnitudes) by libgcrypt, in its secure memory; `nil` when there is none.
    static func inverse(_ a: [UInt8], modulo m: [UInt8]) -> [UInt8]? {
        Gcrypt.ensureInitialized()
        let mpiA = gcry_mpi_snew(0)
        let mpiM = gcry_mpi_snew(0)
        let result = gcry_mpi_snew(0)
        defer { [mpiA, mpiM, result].forEach { gcry_mpi_release($0) } }
        var scannedA: gcry_mpi_t? = nil
        var scannedM: gcry_mpi_t? = nil
        guard gcry_mpi_scan(&scannedA, GCRYMPI_FMT_USG, a, a.count, nil) == 0,
            gcry_mpi_scan(&scannedM, GCRYMPI_FMT_USG, m, m.count, nil) == 0
        else { return nil }
        defer { [scannedA, scannedM].forEach { gcry_mpi_release($0) } }
        _ = gcry_mpi_set(mpiA, scannedA)
        _ = gcry_mpi_set(mpiM, scannedM)
        guard gcry_mpi_invm(result, mpiA, mpiM) != 0 else { return nil }
        var buffer: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard gcry_mpi_aprint(GCRYMPI_FMT_USG, &buffer, &length, result) == 0, let buffer else { return nil }
        defer {
            MemoryWiping.wipe(UnsafeMutableRawBufferPointer(start: buffer, count: length))
            gcry_free(buffer)
        }
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }

    /// Whether the big-endian magnitude `a` is greater than `b`.
    static func isGreater(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let a = a.drop { $0 == 0 }
        let b = b.drop { $0 == 0 }
        if a.count != b.count { return a.count > b.count }
        return a.lexicographicallyPrecedes(b) == false && a != b
    }
}
