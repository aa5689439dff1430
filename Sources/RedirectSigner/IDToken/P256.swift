import CGcrypt
import Secp256k1
import Synchronization

/// A NIST P-256 public key (the uncompressed point `x‖y`), checked by libgcrypt to lie on the curve.
public struct P256PublicKey: Sendable, Hashable {
    /// The x coordinate, 32 bytes big-endian.
    public let x: [UInt8]
    /// The y coordinate, 32 bytes big-endian.
    public let y: [UInt8]

    /// The key for coordinates `x` and `y`, or `nil` when either is not 32 bytes or the point is not on P-256.
    public init?(x: [UInt8], y: [UInt8]) {
        guard x.count == 32, y.count == 32, P256.isOnCurve([0x04] + x + y) else { return nil }
        self.x = x
        self.y = y
    }

    /// Whether `signature` (64 bytes r‖s, as JWS ES256 carries it) is this key's ECDSA signature of
    /// SHA-256(`message`). Any other length, r or s out of range, or another key's signature is `false`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64 else { return false }
        return P256.verify(
            point: [0x04] + x + y, r: Array(signature[0..<32]), s: Array(signature[32..<64]),
            digest: P256.sha256(message))
    }
}

/// libgcrypt's P-256 ECDSA, through canonical S-expressions (no variadic calls).
enum P256 {
    static let curve = Array("NIST P-256".utf8)

    static func ensureInitialized() {
        // Allocating secure memory runs the Secp256k1 module's one-time libgcrypt initialisation.
        _ = initialized
    }

    private static let initialized: Bool = {
        _ = SecureBytes(zeroedCount: 1)
        return true
    }()

    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256.hash(bytes) }

    /// A canonical S-expression atom: `LEN:bytes`.
    static func atom(_ bytes: [UInt8]) -> [UInt8] { Array(String(bytes.count).utf8) + [UInt8(ascii: ":")] + bytes }

    static func atom(_ text: String) -> [UInt8] { atom(Array(text.utf8)) }

    /// A list of already-encoded elements.
    static func list(_ elements: [UInt8]...) -> [UInt8] {
        [UInt8(ascii: "(")] + elements.flatMap { $0 } + [UInt8(ascii: ")")]
    }

    /// An unsigned big-endian integer as an MPI atom, with a `00` byte when the top bit is set (so a
    /// signed reading gives the same number).
    static func unsignedAtom(_ bytes: [UInt8]) -> [UInt8] {
        atom((bytes.first ?? 0) & 0x80 != 0 ? [0] + bytes : bytes)
    }

    /// Parses a canonical S-expression; `nil` when libgcrypt refuses it.
    static func scan(_ bytes: [UInt8]) -> gcry_sexp_t? {
        ensureInitialized()
        var sexp: gcry_sexp_t?
        var offset = 0
        let status = bytes.withUnsafeBytes { buffer in gcry_sexp_sscan(&sexp, &offset, buffer.baseAddress, buffer.count)
        }
        guard status == 0 else { return nil }
        return sexp
    }

    static func publicKey(point: [UInt8]) -> [UInt8] {
        list(atom("public-key"), list(atom("ecc"), list(atom("curve"), atom(curve)), list(atom("q"), atom(point))))
    }

    static func data(digest: [UInt8]) -> [UInt8] {
        list(atom("data"), list(atom("flags"), atom("rfc6979")), list(atom("hash"), atom("sha256"), atom(digest)))
    }

    /// Whether the uncompressed point `04‖x‖y` lies on P-256.
    static func isOnCurve(_ point: [UInt8]) -> Bool {
        guard let key = scan(publicKey(point: point)) else { return false }
        defer { gcry_sexp_release(key) }
        var context: gcry_ctx_t?
        guard gcry_mpi_ec_new(&context, key, nil) == 0, let context else { return false }
        defer { gcry_ctx_release(context) }
        guard let q = gcry_mpi_ec_get_point("q", context, 1) else { return false }
        defer { gcry_mpi_point_release(q) }
        return gcry_mpi_ec_curve_point(q, context) != 0
    }

    static func verify(point: [UInt8], r: [UInt8], s: [UInt8], digest: [UInt8]) -> Bool {
        guard let key = scan(publicKey(point: point)) else { return false }
        defer { gcry_sexp_release(key) }
        guard let data = scan(data(digest: digest)) else { return false }
        defer { gcry_sexp_release(data) }
        let signature = list(
            atom("sig-val"), list(atom("ecdsa"), list(atom("r"), unsignedAtom(r)), list(atom("s"), unsignedAtom(s))))
        guard let sig = scan(signature) else { return false }
        defer { gcry_sexp_release(sig) }
        return gcry_pk_verify(sig, data, key) == 0
    }

    /// The data of the first `name` sub-list's second element, e.g. `q` or `r`.
    static func token(_ sexp: gcry_sexp_t, _ name: String) -> [UInt8]? {
        guard let found = gcry_sexp_find_token(sexp, name, 0) else { return nil }
        defer { gcry_sexp_release(found) }
        var length = 0
        guard let pointer = gcry_sexp_nth_data(found, 1, &length) else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    /// An unsigned integer as exactly 32 bytes (leading zeros added or a sign byte dropped).
    static func fixed32(_ bytes: [UInt8]) -> [UInt8]? {
        var value = bytes
        while value.count > 32, value.first == 0 { value.removeFirst() }
        guard value.count <= 32 else { return nil }
        return [UInt8](repeating: 0, count: 32 - value.count) + value
    }
}

/// A P-256 signing key generated by libgcrypt (its private part held by libgcrypt in secure memory and
/// wiped on release): the hosted-wallet simulator's ID-token key. ES256 signatures are deterministic
/// (RFC 6979).
package final class P256SigningKey: @unchecked Sendable {
    // The key S-expression is only read after init; the lock keeps libgcrypt calls on it serial.
    private let secret: gcry_sexp_t
    private let lock = Mutex(())
    /// The public key.
    package let publicKey: P256PublicKey

    /// A fresh key from libgcrypt's strong random generator.
    package init() {
        P256.ensureInitialized()
        let parameters = P256.list(
            P256.atom("genkey"), P256.list(P256.atom("ecc"), P256.list(P256.atom("curve"), P256.atom(P256.curve))))
        guard let spec = P256.scan(parameters) else { fatalError("libgcrypt refused the P-256 key parameters") }
        defer { gcry_sexp_release(spec) }
        var generated: gcry_sexp_t?
        guard gcry_pk_genkey(&generated, spec) == 0, let generated else {
            fatalError("libgcrypt could not generate a P-256 key")
        }
        guard let secret = gcry_sexp_find_token(generated, "private-key", 0) else {
            fatalError("libgcrypt returned no private key")
        }
        guard let point = P256.token(generated, "q"), point.count == 65, point[0] == 4,
            let publicKey = P256PublicKey(x: Array(point[1..<33]), y: Array(point[33..<65]))
        else { fatalError("libgcrypt returned an unexpected public key") }
        gcry_sexp_release(generated)
        self.secret = secret
        self.publicKey = publicKey
    }

    deinit {
        gcry_sexp_release(secret)
    }

    /// The ES256 signature of `message`: 64 bytes r‖s over SHA-256(`message`).
    package func sign(_ message: [UInt8]) -> [UInt8] {
        let digest = P256.sha256(message)
        guard let data = P256.scan(P256.data(digest: digest)) else { fatalError("libgcrypt refused the data") }
        defer { gcry_sexp_release(data) }
        return lock.withLock { _ in
            var signature: gcry_sexp_t?
            guard gcry_pk_sign(&signature, data, secret) == 0, let signature else {
                fatalError("libgcrypt could not sign with P-256")
            }
            defer { gcry_sexp_release(signature) }
            guard let r = P256.token(signature, "r").flatMap(P256.fixed32),
                let s = P256.token(signature, "s").flatMap(P256.fixed32)
            else { fatalError("libgcrypt returned an unexpected signature") }
            return r + s
        }
    }
}
