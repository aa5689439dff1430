import EthereumPrimitives

extension CompiledTypedData {
    /// The digest of `message` given as a `JSONValue` (a literal, or a value from `JSONValueEncoder`)
    /// under this domain.
    public func digest(message: JSONValue) throws(EIP712Error) -> Bytes32 { try hashes(message: message).digest }
}
