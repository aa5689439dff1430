import CSecp256k1

/// The process-wide libsecp256k1 context.
///
/// `@unchecked Sendable`: the context is created and randomised (the only mutating calls) inside
/// the initializer, before the value can be shared, and is never destroyed. libsecp256k1
/// documents every other function taking a `const secp256k1_context*` — signing, key
/// derivation, parsing, serialisation, verification, recovery — as safe to call concurrently on
/// one context.
final class SharedContext: @unchecked Sendable {
    /// The `const secp256k1_context*` handle.
    let raw: OpaquePointer

    /// The one context, created on first use (thread-safely, as for any global `let`).
    static let shared = SharedContext()

    private init() {
        guard let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
            fatalError("secp256k1_context_create failed")
        }
        // Blinding for side-channel protection of signing and key derivation, seeded from
        // libgcrypt; the seed is kept in secure memory and wiped afterwards.
        let seed = SecureBytes(count: 32) { (buffer: UnsafeMutableRawBufferPointer) in
            Gcrypt.randomize(buffer, veryStrong: false)
        }
        let randomized = seed.withUnsafeBytes { bytes in
            // A non-empty buffer's base address is never nil.
            // swift-format-ignore: NeverForceUnwrap
            secp256k1_context_randomize(context, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        seed.wipe()
        guard randomized == 1 else { fatalError("secp256k1_context_randomize failed") }
        raw = context
    }
}
