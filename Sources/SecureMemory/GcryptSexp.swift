import CGcrypt

/// libgcrypt's canonical S-expressions (`(3:rsa(1:n257:…))`), built as bytes and scanned without the
/// variadic `gcry_sexp_build`, which Swift cannot call: the keys and data of every libgcrypt public-key
/// operation SignerKit makes (P-256 ID tokens, RS256 service-account JWTs).
package enum GcryptSexp {
    /// A canonical atom: `LEN:bytes`.
    package static func atom(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(bytes.count).utf8) + [UInt8(ascii: ":")] + bytes
    }

    /// A canonical atom of `text`'s UTF-8.
    package static func atom(_ text: String) -> [UInt8] { atom(Array(text.utf8)) }

    /// A list of already-encoded elements.
    package static func list(_ elements: [UInt8]...) -> [UInt8] { list(elements) }

    /// A list of already-encoded elements.
    package static func list(_ elements: [[UInt8]]) -> [UInt8] {
        [UInt8(ascii: "(")] + elements.flatMap { $0 } + [UInt8(ascii: ")")]
    }

    /// An unsigned big-endian integer as an MPI atom, with a `00` byte when the top bit is set (so a signed
    /// reading gives the same number).
    package static func unsignedAtom(_ bytes: [UInt8]) -> [UInt8] {
        atom((bytes.first ?? 0) & 0x80 != 0 ? [0] + bytes : bytes)
    }

    /// Parses a canonical S-expression; `nil` when libgcrypt refuses it.
    package static func scan(_ bytes: [UInt8]) -> gcry_sexp_t? { bytes.withUnsafeBytes { scan($0) } }

    /// Parses a canonical S-expression held in `bytes` (secure memory keeps a key there); `nil` when libgcrypt
    /// refuses it.
    package static func scan(_ bytes: UnsafeRawBufferPointer) -> gcry_sexp_t? {
        Gcrypt.ensureInitialized()
        var sexp: gcry_sexp_t?
        var offset = 0
        guard gcry_sexp_sscan(&sexp, &offset, bytes.baseAddress, bytes.count) == 0 else { return nil }
        return sexp
    }

    /// The data of the first `name` sub-list's second element, e.g. RSA's `s`.
    package static func token(_ sexp: gcry_sexp_t, _ name: String) -> [UInt8]? {
        guard let found = gcry_sexp_find_token(sexp, name, 0) else { return nil }
        defer { gcry_sexp_release(found) }
        var length = 0
        guard let pointer = gcry_sexp_nth_data(found, 1, &length) else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }
}
