/// The password-based key derivation of a Web3 Secret Storage keystore, with its cost
/// parameters (the salt and derived-key length are stored separately).
public enum KeystoreKDF: Sendable, Hashable, CustomStringConvertible {
    /// scrypt (RFC 7914) with CPU/memory cost `n` (a power of two), block size `r` and
    /// parallelisation `p`. libgcrypt runs scrypt only with r = 1 or r = 8.
    case scrypt(n: Int, r: Int, p: Int)
    /// PBKDF2 with HMAC-SHA-256 (`prf: "hmac-sha256"`) and `iterations` rounds (the `c` field).
    case pbkdf2(iterations: Int)

    /// The default for new keystores: scrypt n = 131072 (2^17), r = 8, p = 1 — 128 MiB and
    /// roughly a second of work per unlock.
    public static let standard: KeystoreKDF = .scrypt(n: 131_072, r: 8, p: 1)

    /// geth's "light" scrypt parameters (n = 4096, r = 8, p = 6): 4 MiB, fast to unlock; for
    /// tests and low-value keys.
    public static let light: KeystoreKDF = .scrypt(n: 4096, r: 8, p: 6)

    /// Upper bound on the memory scrypt may use per block array (128 × r × n bytes, and
    /// likewise 128 × r × p): 1 GiB. Keystores asking for more are rejected before any work, so
    /// a hostile file cannot make the process allocate unbounded memory.
    public static let maximumScryptMemory = 1 << 30

    /// `scrypt(n: …, r: …, p: …)` or `pbkdf2(iterations: …)`.
    public var description: String {
        switch self {
        case .scrypt(let n, let r, let p): "scrypt(n: \(n), r: \(r), p: \(p))"
        case .pbkdf2(let iterations): "pbkdf2-hmac-sha256(iterations: \(iterations))"
        }
    }

    /// Checks the parameters; errors name the keystore field (`crypto.kdfparams.n`, …).
    func validate() throws(KeystoreError) {
        switch self {
        case .scrypt(let n, let r, let p):
            guard n >= 2 else { throw .invalidField(field: "crypto.kdfparams.n", reason: "must be at least 2") }
            guard n & (n - 1) == 0 else {
                throw .invalidField(field: "crypto.kdfparams.n", reason: "must be a power of two")
            }
            guard r >= 1 else { throw .invalidField(field: "crypto.kdfparams.r", reason: "must be at least 1") }
            guard p >= 1 else { throw .invalidField(field: "crypto.kdfparams.p", reason: "must be at least 1") }
            guard KeystoreCrypto.supportedScryptR.contains(r) else {
                throw .unsupported(
                    field: "crypto.kdfparams.r", reason: "libgcrypt's scrypt supports only r = 1 and r = 8, got \(r)")
            }
            guard Self.withinMemoryLimit(r, n) else {
                throw .invalidField(field: "crypto.kdfparams.n", reason: "128 × r × n bytes must not exceed 1 GiB")
            }
            guard Self.withinMemoryLimit(r, p) else {
                throw .invalidField(field: "crypto.kdfparams.p", reason: "128 × r × p bytes must not exceed 1 GiB")
            }
        case .pbkdf2(let iterations):
            guard iterations >= 1 else {
                throw .invalidField(field: "crypto.kdfparams.c", reason: "must be at least 1")
            }
            guard iterations <= Int(UInt32.max) else {
                throw .invalidField(field: "crypto.kdfparams.c", reason: "must be at most \(UInt32.max)")
            }
        }
    }

    /// 128 × r × count ≤ ``maximumScryptMemory``, without overflow.
    private static func withinMemoryLimit(_ r: Int, _ count: Int) -> Bool {
        let (blockBytes, overflow1) = r.multipliedReportingOverflow(by: 128)
        let (total, overflow2) = blockBytes.multipliedReportingOverflow(by: count)
        return !overflow1 && !overflow2 && total <= maximumScryptMemory
    }
}
