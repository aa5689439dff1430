import EthereumPrimitives

extension CompiledTypedData {
    /// The digest of `message`, a Swift value of the primary type, under this domain. The value is hashed as
    /// it encodes — each member straight to its ABI word, no JSON on the way — and read exactly as the JSON
    /// path reads `JSONValueEncoder().encode(message)`: the same digest, the same strictness.
    ///
    /// Throws what the value's `encode(to:)` throws, or an ``EIP712Error`` whose path starts at `message`.
    public func digest(encoding message: some Encodable) throws -> Bytes32 {
        try hashes(encoding: message).digest
    }

    /// Hashes of `message`, a Swift value of the primary type (see ``digest(encoding:)``).
    public func hashes(encoding message: some Encodable) throws -> TypedDataHashes {
        let structHash: Bytes32
        do {
            structHash = try EncodableHasher(schema: schema).hashStruct(message, index: primaryIndex)
        } catch let error as EIP712Error {
            throw error.under(.key("message"))
        }
        return TypedDataHashes(domainSeparator: domainSeparator, structHash: structHash)
    }
}
