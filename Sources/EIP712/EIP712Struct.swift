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
    ///
    /// - Throws: ``EIP712Error`` naming the member whose value does not fit its EIP-712 type.
    func encodeData(into words: inout EIP712WordHasher) throws(EIP712Error)
}

extension EIP712Struct {
    /// `hashStruct(self)`: `keccak256(typeHash ‖ encodeData(self))`.
    ///
    /// - Throws: ``EIP712Error`` with the path to a member whose value does not fit its EIP-712 type
    ///   (`assets[1].nonce: the value does not fit in uint24`).
    @inlinable public func hashStruct() throws(EIP712Error) -> Bytes32 {
        var words = EIP712WordHasher()
        words.write(Self.typeHash)
        try encodeData(into: &words)
        return words.finalize()
    }

    /// Domain separator, struct hash and digest of this message under `domain` (usually the generated
    /// `EIP712Domain`).
    @inlinable public func hashes(domain: some EIP712Struct) throws(EIP712Error) -> TypedDataHashes {
        TypedDataHashes(domainSeparator: try domain.hashStruct(), structHash: try hashStruct())
    }

    /// The digest to sign: this message under `domain` (usually the generated `EIP712Domain`).
    @inlinable public func digest(domain: some EIP712Struct) throws(EIP712Error) -> Bytes32 {
        try digest(domainSeparator: try domain.hashStruct())
    }

    /// The digest to sign under a domain separator computed once (``hashStruct()`` of the domain, or
    /// ``CompiledTypedData/domainSeparator``), for many messages of one domain.
    @inlinable public func digest(domainSeparator: Bytes32) throws(EIP712Error) -> Bytes32 {
        TypedDataHashes(domainSeparator: domainSeparator, structHash: try hashStruct()).digest
    }
}
