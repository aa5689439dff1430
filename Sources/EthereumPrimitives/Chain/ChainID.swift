/// A CAIP-2 blockchain id, `namespace:reference`, e.g. `eip155:1` or
/// `bip122:000000000019d6689c085ae165831e93`.
///
/// Parsing is strict: the namespace is 3 to 8 characters of `[-a-z0-9]`, the reference 1 to 32
/// characters of `[-_a-zA-Z0-9]`. For the `eip155` namespace the reference must also be the
/// decimal EIP-155 chain id without leading zeros, so each chain has exactly one spelling and
/// equality is chain equality. Chain ids can exceed 2^64, so ``reference`` keeps the decimal text;
/// ``eip155ChainID`` gives the full value and ``eip155ChainIDUInt64`` the common 64-bit case.
///
/// Encodes and decodes (`Codable`) as its string form.
public struct ChainID: Sendable, Hashable, CustomStringConvertible {
    /// The `eip155` namespace (EVM chains).
    public static let eip155Namespace = "eip155"

    /// The namespace, e.g. `eip155`.
    public let namespace: String
    /// The reference within the namespace; for `eip155` the decimal chain id.
    public let reference: String

    /// Parses `namespace:reference`.
    ///
    /// - Throws: ``CAIPError/malformedChainID(_:)`` without a `:`, ``CAIPError/invalidNamespace(_:)``,
    ///   ``CAIPError/invalidReference(_:)``, or for `eip155` ``CAIPError/invalidEIP155Reference(_:)``.
    public init(_ text: String) throws(CAIPError) {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedChainID(text) }
        let namespace = String(text[..<colon])
        let reference = String(text[text.utf8.index(after: colon)...])
        try self.init(namespace: namespace, reference: reference)
    }

    /// Validates and combines a namespace and a reference.
    ///
    /// - Throws: ``CAIPError/invalidNamespace(_:)``, ``CAIPError/invalidReference(_:)``, or for
    ///   `eip155` ``CAIPError/invalidEIP155Reference(_:)``.
    public init(namespace: String, reference: String) throws(CAIPError) {
        guard Self.isValidNamespace(namespace) else { throw .invalidNamespace(namespace) }
        guard Self.isValidReference(reference) else { throw .invalidReference(reference) }
        if namespace == Self.eip155Namespace {
            guard Self.isCanonicalDecimal(reference) else { throw .invalidEIP155Reference(reference) }
        }
        self.namespace = namespace
        self.reference = reference
    }

    /// The `eip155` chain with this EIP-155 chain id (`0` is the CAIP-10 "any chain" id for EOAs).
    public init(eip155 chainID: UInt64) {
        namespace = Self.eip155Namespace
        reference = String(chainID)
    }

    /// The `eip155` chain with this EIP-155 chain id.
    ///
    /// - Throws: ``CAIPError/invalidReference(_:)`` if the decimal form is longer than the 32
    ///   characters CAIP-2 allows (ids of 10^32 and above).
    public init(eip155ChainID chainID: UInt256) throws(CAIPError) {
        let decimal = chainID.decimalString
        guard decimal.utf8.count <= 32 else { throw .invalidReference(decimal) }
        namespace = Self.eip155Namespace
        reference = decimal
    }

    /// `namespace:reference`.
    public var description: String { namespace + ":" + reference }

    /// True for the `eip155` namespace.
    public var isEIP155: Bool { namespace == Self.eip155Namespace }

    /// The EIP-155 chain id for the `eip155` namespace, otherwise `nil`.
    public var eip155ChainID: UInt256? {
        guard isEIP155 else { return nil }
        var value = UInt256.zero
        for c in reference.utf8 {
            guard let next = value.multipliedAdding(10, UInt64(c &- 0x30)) else { return nil }
            value = next
        }
        return value
    }

    /// The EIP-155 chain id for the `eip155` namespace when it fits in 64 bits, otherwise `nil`.
    public var eip155ChainIDUInt64: UInt64? {
        guard isEIP155 else { return nil }
        return UInt64(reference)
    }

    // MARK: - Syntax

    /// `[-a-z0-9]{3,8}`.
    static func isValidNamespace(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (3...8).contains(utf8.count) else { return false }
        return utf8.allSatisfy { c in
            c == UInt8(ascii: "-") || (0x61...0x7a).contains(c) || (0x30...0x39).contains(c)
        }
    }

    /// `[-_a-zA-Z0-9]{1,32}`.
    static func isValidReference(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...32).contains(utf8.count) else { return false }
        return utf8.allSatisfy { c in
            c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || isAlphanumeric(c)
        }
    }

    /// `0|[1-9][0-9]*`.
    static func isCanonicalDecimal(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard let first = utf8.first, utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        return first != UInt8(ascii: "0") || utf8.count == 1
    }

    /// ASCII `[a-zA-Z0-9]`.
    @inline(__always) static func isAlphanumeric(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5a).contains(c) || (0x61...0x7a).contains(c)
    }
}

extension ChainID: Codable {
    /// Decodes from the string form, validating it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try ChainID(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes as the string form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
