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

    /// Most PBKDF2 iterations (`c`) accepted: 10,000,000, about 40× the default and a few seconds of
    /// work. A keystore asking for more (up to 2^32 − 1 is well-formed) is refused with
    /// ``KeystoreError/excessiveWork(field:limit:)`` before any derivation.
    public static let maximumPBKDF2Iterations = 10_000_000

    /// Most scrypt work accepted, in bytes: 2^32 (4 GiB). scrypt's work is counted as the memory it
    /// fills and then reads back in ROMix, 128 · r · n bytes, once per parallel lane: 128 · n · r · p
    /// bytes in all (its time grows with this product, its memory with 128 · r · n). The default
    /// (n = 2^17, r = 8, p = 1) is 2^27 bytes; geth's "light" 25 MiB; 2^32 allows, for example,
    /// n = 2^20, r = 8, p = 4. A keystore above it is refused with
    /// ``KeystoreError/excessiveWork(field:limit:)`` before any derivation.
    public static let maximumScryptWork: UInt64 = 1 << 32

    /// The scrypt work 128 · n · r · p in bytes, or `nil` if it overflows 64 bits (or a parameter
    /// is negative).
    static func scryptWork(n: Int, r: Int, p: Int) -> UInt64? {
        guard n >= 0, r >= 0, p >= 0 else { return nil }
        var work: UInt64 = 128
        for factor in [n, r, p] {
            let (product, overflow) = work.multipliedReportingOverflow(by: UInt64(factor))
            guard !overflow else { return nil }
            work = product
        }
        return work
    }

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
            guard let work = Self.scryptWork(n: n, r: r, p: p), work <= Self.maximumScryptWork else {
                throw .excessiveWork(
                    field: "crypto.kdfparams.n",
                    limit:
                        "scrypt n = \(n), r = \(r), p = \(p) is 128·n·r·p = \(Self.scryptWork(n: n, r: r, p: p).map(String.init) ?? "more than 2^64") bytes of work, above 2^32"
                )
            }
        case .pbkdf2(let iterations):
            guard iterations >= 1 else {
                throw .invalidField(field: "crypto.kdfparams.c", reason: "must be at least 1")
            }
            guard iterations <= Int(UInt32.max) else {
                throw .invalidField(field: "crypto.kdfparams.c", reason: "must be at most \(UInt32.max)")
            }
            guard iterations <= Self.maximumPBKDF2Iterations else {
                throw .excessiveWork(
                    field: "crypto.kdfparams.c",
                    limit: "pbkdf2 c = \(iterations) is above the limit of \(Self.maximumPBKDF2Iterations) iterations")
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
