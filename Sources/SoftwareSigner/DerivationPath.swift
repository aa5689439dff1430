import EthereumPrimitives

/// A BIP-32 derivation path such as `m/44'/60'/0'/0/0`: `m`, then `/`-separated decimal indices
/// below 2^31, each optionally followed by one `'` (or `h`) for a hardened index.
public struct DerivationPath: Sendable, Hashable, CustomStringConvertible {
    /// The first hardened index, 2^31.
    public static let hardenedOffset: UInt32 = 0x8000_0000

    /// The child indices from the master key, hardened ones with ``hardenedOffset`` added.
    public let indices: [UInt32]

    /// Wraps indices (hardened ones already offset).
    public init(indices: [UInt32]) {
        self.indices = indices
    }

    /// The BIP-44 Ethereum path `m/44'/60'/0'/0/index`.
    ///
    /// - Throws: ``DerivationPathError/invalidSegment(position:segment:reason:)`` when `index` is
    ///   negative or 2^31 or more.
    public static func ethereum(index: Int) throws(DerivationPathError) -> DerivationPath {
        guard index >= 0, index < Int(hardenedOffset) else {
            throw .invalidSegment(position: 5, segment: String(index), reason: "index must be between 0 and 2147483647")
        }
        let h = hardenedOffset
        return DerivationPath(indices: [44 + h, 60 + h, h, 0, UInt32(index)])
    }

    /// Parses `m/…`.
    ///
    /// - Throws: ``DerivationPathError`` naming the bad segment (positions count from 1 after `m`).
    public init(parsing text: String) throws(DerivationPathError) {
        let segments = text.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.first == "m" else { throw .missingRoot(path: EchoedText.abbreviated(text)) }
        var indices: [UInt32] = []
        for (offset, segment) in segments.dropFirst().enumerated() {
            indices.append(try Self.index(segment, position: offset + 1))
        }
        self.indices = indices
    }

    /// One segment's index.
    private static func index(_ segment: Substring, position: Int) throws(DerivationPathError) -> UInt32 {
        func fail(_ reason: String) -> DerivationPathError {
            .invalidSegment(position: position, segment: EchoedText.abbreviated(segment), reason: reason)
        }
        guard !segment.isEmpty else { throw fail("empty segment") }
        var digits = segment.utf8[...]
        var hardened = false
        if let last = digits.last, isMarker(last) {
            hardened = true
            digits = digits.dropLast()
        }
        guard !digits.isEmpty else { throw fail("no index before the hardened marker") }
        guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw fail(
                hardened && digits.last.map(isMarker) == true
                    && digits.dropLast().allSatisfy({ (0x30...0x39).contains($0) })
                    ? "at most one hardened marker (') per segment" : "not a decimal index (digits 0-9 only)")
        }
        guard digits.count <= 10, let value = UInt64(String(decoding: digits, as: UTF8.self)),
            value < UInt64(hardenedOffset)
        else {
            throw fail("index must be below 2^31 (2147483648); mark hardened indices with ' instead")
        }
        return UInt32(value) + (hardened ? hardenedOffset : 0)
    }

    /// `'`, `h` or `H`.
    private static func isMarker(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "'") || byte == UInt8(ascii: "h") || byte == UInt8(ascii: "H")
    }

    /// `m/44'/60'/0'/0/0`.
    public var description: String {
        (["m"]
            + indices.map { index in
                index >= Self.hardenedOffset ? "\(index - Self.hardenedOffset)'" : "\(index)"
            }).joined(separator: "/")
    }
}

/// Why a derivation path was refused.
public enum DerivationPathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path does not start with the `m` segment (quoted, abbreviated).
    case missingRoot(path: String)
    /// Segment `position` (from 1, after `m`; quoted, abbreviated) is not an index.
    case invalidSegment(position: Int, segment: String, reason: String)

    /// A one-line explanation naming the bad segment.
    public var description: String {
        switch self {
        case .missingRoot(let path):
            "derivation path \"\(path)\" must start with the segment \"m\" (as in m/44'/60'/0'/0/0)"
        case .invalidSegment(let position, let segment, let reason):
            "derivation path segment \(position) \"\(segment)\": \(reason)"
        }
    }
}
