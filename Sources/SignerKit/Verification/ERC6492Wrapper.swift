import EthereumPrimitives

/// An ERC-6492 signature: `abi.encode(address factory, bytes factoryCalldata, bytes signature) ++ magic`, the
/// form a smart account that is not deployed yet signs with. A verifier deploys the account inside a
/// read-only call (the factory with its calldata) and then asks it about ``signature`` (ERC-1271).
///
/// Parsing is strict and never traps: every offset and length is bounds-checked before it is used, and a
/// failure names the field and the byte position.
///
/// ```swift
/// if ERC6492Wrapper.isWrapped(bytes) {
///     let wrapper = try ERC6492Wrapper(parsing: bytes)
///     print(wrapper.factory, wrapper.signature.count)
/// }
/// ```
public struct ERC6492Wrapper: Sendable, Hashable {
    /// The 32 bytes `0x6492…6492` that end every ERC-6492 signature.
    public static let magicSuffix: [UInt8] = Array(repeating: [0x64, 0x92], count: 16).flatMap { $0 }

    /// The contract that deploys the account.
    public let factory: Address
    /// The call to `factory` that deploys it.
    public let factoryCalldata: [UInt8]
    /// The signature the deployed account checks (ERC-1271).
    public let signature: [UInt8]

    /// A wrapper of these parts.
    public init(factory: Address, factoryCalldata: [UInt8], signature: [UInt8]) {
        self.factory = factory
        self.factoryCalldata = factoryCalldata
        self.signature = signature
    }

    /// Whether `bytes` ends with ``magicSuffix`` (and so must be read as a wrapper).
    public static func isWrapped(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count >= 32 && bytes.suffix(32).elementsEqual(magicSuffix)
    }

    /// The signature bytes: the encoded parts followed by ``magicSuffix``.
    public var encoded: [UInt8] {
        ContractCallData.encode([.word(factory.word), .bytes(factoryCalldata), .bytes(signature)]) + Self.magicSuffix
    }

    /// Reads a wrapped signature.
    ///
    /// - Throws: ``ERC6492WrapperError`` naming the field and position that is wrong.
    public init(parsing bytes: [UInt8]) throws(ERC6492WrapperError) {
        guard Self.isWrapped(bytes) else { throw .missingMagicSuffix }
        let body = bytes[..<(bytes.count - 32)]
        guard body.count >= 96 else { throw .truncated(field: "head", needed: 96, available: body.count) }
        let factoryWord = body[0..<32]
        guard factoryWord.prefix(12).allSatisfy({ $0 == 0 }), let factory = Address(bytes: factoryWord.suffix(20))
        else { throw .addressNotPadded(position: 0) }
        self.factory = factory
        factoryCalldata = try Self.dynamicBytes(body, headPosition: 32, field: "factoryCalldata")
        signature = try Self.dynamicBytes(body, headPosition: 64, field: "signature")
    }

    /// The `bytes` value whose offset is the word at `headPosition` of `body`.
    private static func dynamicBytes(_ body: ArraySlice<UInt8>, headPosition: Int, field: String)
        throws(ERC6492WrapperError) -> [UInt8]
    {
        let start = body.startIndex
        let offset = try smallInteger(body, at: headPosition, field: "\(field) offset")
        guard offset <= body.count - 32 else {
            throw .outOfBounds(field: "\(field) offset", position: headPosition, value: offset, limit: body.count - 32)
        }
        let length = try smallInteger(body, at: offset, field: "\(field) length")
        let dataStart = offset + 32
        guard length <= body.count - dataStart else {
            throw .outOfBounds(field: "\(field) length", position: offset, value: length, limit: body.count - dataStart)
        }
        return Array(body[(start + dataStart)..<(start + dataStart + length)])
    }

    /// The 32-byte big-endian word at `position` of `body` as an `Int`, when it is below 2³² (every
    /// offset and length of a real signature is; a larger one cannot address anything in the bytes).
    private static func smallInteger(_ body: ArraySlice<UInt8>, at position: Int, field: String)
        throws(ERC6492WrapperError) -> Int
    {
        guard position >= 0, position <= body.count - 32 else {
            throw .truncated(field: field, needed: position + 32, available: body.count)
        }
        let word = body[(body.startIndex + position)..<(body.startIndex + position + 32)]
        guard word.prefix(28).allSatisfy({ $0 == 0 }) else { throw .tooLarge(field: field, position: position) }
        return word.suffix(4).reduce(0) { $0 << 8 | Int($1) }
    }
}

/// Why bytes are not an ERC-6492 wrapper; positions count bytes from the start of the signature.
public enum ERC6492WrapperError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes do not end with ``ERC6492Wrapper/magicSuffix``.
    case missingMagicSuffix
    /// The bytes end before `field` does: `needed` bytes before the suffix, `available` there.
    case truncated(field: String, needed: Int, available: Int)
    /// The factory's word at `position` has nonzero bytes before its 20 address bytes.
    case addressNotPadded(position: Int)
    /// The word of `field` at `position` is 2³² or more.
    case tooLarge(field: String, position: Int)
    /// The `field` read at `position` is `value`, past `limit`.
    case outOfBounds(field: String, position: Int, value: Int, limit: Int)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .missingMagicSuffix: "the signature does not end with the ERC-6492 magic suffix"
        case .truncated(let field, let needed, let available):
            "ERC-6492 wrapper: \(field) needs \(needed) bytes, the wrapper has \(available)"
        case .addressNotPadded(let position):
            "ERC-6492 wrapper: factory (byte \(position)) is not an address word (nonzero high bytes)"
        case .tooLarge(let field, let position):
            "ERC-6492 wrapper: \(field) (byte \(position)) is 2^32 or more"
        case .outOfBounds(let field, let position, let value, let limit):
            "ERC-6492 wrapper: \(field) (byte \(position)) is \(value), past \(limit)"
        }
    }
}
