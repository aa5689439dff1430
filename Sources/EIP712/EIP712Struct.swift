import EthereumPrimitives

/// A Swift struct that is an EIP-712 struct type, with its type hash known before any message: what the
/// `EIP712CodegenPlugin` generates from a `*.eip712.json` schema (docs/EIP712.md). Hashing one writes its
/// members' words straight into Keccak-256 (``EIP712WordHasher``): no JSON, no schema lookup.
public protocol EIP712Struct: Sendable {
    /// The EIP-712 type name, e.g. `Order`.
    static var eip712TypeName: String { get }
    /// `encodeType`: this type's `Name(type name,…)`, then those of the structs it refers to, by name.
    static var encodeType: String { get }
    /// `keccak256(encodeType)`.
    static var typeHash: Bytes32 { get }
    /// Writes `encodeData` without the type hash: one word per member, in declaration order.
    func encodeData(into words: inout EIP712WordHasher)
}

extension EIP712Struct {
    /// `hashStruct(self)`: `keccak256(typeHash ‖ encodeData(self))`.
    @inlinable public func hashStruct() -> Bytes32 {
        var words = EIP712WordHasher()
        words.write(Self.typeHash)
        encodeData(into: &words)
        return words.finalize()
    }

    /// Domain separator, struct hash and digest of this message under `domain` (usually the generated
    /// `EIP712Domain`).
    @inlinable public func hashes(domain: some EIP712Struct) -> TypedDataHashes {
        TypedDataHashes(domainSeparator: domain.hashStruct(), structHash: hashStruct())
    }

    /// The digest to sign: this message under `domain` (usually the generated `EIP712Domain`).
    @inlinable public func digest(domain: some EIP712Struct) -> Bytes32 {
        digest(domainSeparator: domain.hashStruct())
    }

    /// The digest to sign under a domain separator computed once (``hashStruct()`` of the domain, or
    /// ``CompiledTypedData/domainSeparator``), for many messages of one domain.
    @inlinable public func digest(domainSeparator: Bytes32) -> Bytes32 {
        TypedDataHashes(domainSeparator: domainSeparator, structHash: hashStruct()).digest
    }
}
