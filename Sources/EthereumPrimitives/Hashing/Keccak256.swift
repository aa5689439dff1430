import CKeccak

/// Keccak-256 as Ethereum uses it: the original Keccak padding (0x01 … 0x80), not SHA3-256.
public enum Keccak256 {
    /// Hashes a contiguous byte buffer.
    @inlinable public static func hash(_ buffer: UnsafeRawBufferPointer) -> Bytes32 {
        Bytes32 { out in
            // A 32-byte buffer: its base address is never nil.
            // swift-format-ignore: NeverForceUnwrap
            let digest = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            sk_keccak256(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, digest)
        }
    }

    /// Hashes an array of bytes.
    @inlinable public static func hash(_ bytes: [UInt8]) -> Bytes32 {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// Hashes a slice of bytes.
    @inlinable public static func hash(_ bytes: ArraySlice<UInt8>) -> Bytes32 {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// Hashes the UTF-8 bytes of a string.
    @inlinable public static func hash(utf8 text: String) -> Bytes32 {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// Hashes 32 bytes (e.g. for keccak256 of a word).
    @inlinable public static func hash(_ word: Bytes32) -> Bytes32 {
        word.withUnsafeBytes { hash($0) }
    }

    /// Incremental hashing for input that arrives in parts.
    public struct Hasher: Sendable {
        @usableFromInline internal var context = sk_keccak256_ctx()

        /// A hasher over the empty message.
        @inlinable public init() {}

        /// Absorbs bytes.
        @inlinable public mutating func update(_ buffer: UnsafeRawBufferPointer) {
            sk_keccak256_update(&context, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count)
        }

        /// Absorbs bytes.
        @inlinable public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

        /// Absorbs 32 bytes.
        @inlinable public mutating func update(_ word: Bytes32) {
            word.withUnsafeBytes {
                // A non-empty buffer's base address is never nil.
                // swift-format-ignore: NeverForceUnwrap
                sk_keccak256_update_word(&context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }

        /// Pads and returns the digest; the hasher is reset to the empty message.
        @inlinable public mutating func finalize() -> Bytes32 {
            // sk_keccak256_final wipes the context, which is the empty-message state: ready for reuse.
            // A non-empty buffer's base address is never nil.
            // swift-format-ignore: NeverForceUnwrap
            Bytes32 { out in sk_keccak256_final(&context, out.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        }
    }
}

/// The bare Keccak-f[1600] permutation, exposed for benchmarks and sponge constructions.
public enum KeccakF1600 {
    /// Permutes 25 little-endian 64-bit lanes in place. `state` must hold exactly 25 lanes.
    @inlinable public static func permute(_ state: inout [UInt64]) {
        precondition(state.count == 25, "Keccak-f[1600] state has 25 lanes")
        // A non-empty buffer's base address is never nil.
        // swift-format-ignore: NeverForceUnwrap
        state.withUnsafeMutableBufferPointer { sk_keccakf1600($0.baseAddress!) }
    }

    /// Permutes 25 lanes at `lanes` in place.
    @inlinable public static func permute(_ lanes: UnsafeMutablePointer<UInt64>) {
        sk_keccakf1600(lanes)
    }
}
