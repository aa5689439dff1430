import EthereumPrimitives

/// Reads JSON-RPC result values strictly with ``JSONReader``, turning every mismatch into
/// ``NodeError/invalidResponse(method:reason:)`` whose reason names the field (`blockNumber: missing`).
package struct NodeResponseReader {
    /// The method whose result is being read (for error messages).
    package let method: String

    /// A reader for the result of `method`.
    package init(method: String) { self.method = method }

    /// The error for a result that is not what `method` returns.
    package func fail(_ reason: String) -> NodeError { .invalidResponse(method: method, reason: reason) }

    /// What a field of a node's answer got wrong, before it becomes a ``NodeError``.
    package struct Problem: LocatedJSONError {
        let path: String
        let problem: String

        package init(path: String, problem: String) {
            self.path = path
            self.problem = problem
        }
    }

    /// `read` applied to `value` at `field`, its failure as ``NodeError/invalidResponse(method:reason:)``.
    private func read<T>(_ value: JSONValue?, _ field: String, _ read: (JSONReader<Problem>) throws(Problem) -> T)
        throws(NodeError) -> T
    {
        do { return try read(JSONReader(value, at: field)) } catch { throw fail("\(error.path): \(error.problem)") }
    }

    /// A `0x`-hex quantity string (never a JSON number, never through `Double`).
    package func quantity(_ value: JSONValue?, field: String) throws(NodeError) -> UInt256 {
        try read(value, field) { (json) throws(Problem) in
            let text = try json.string()
            guard text.hasPrefix("0x") || text.hasPrefix("0X") else {
                throw json.fail("\(EchoedText.abbreviated(text).debugDescription) is not a hex quantity")
            }
            return try json.uint256()
        }
    }

    /// A quantity that may be absent or `null`.
    package func optionalQuantity(_ value: JSONValue?, field: String) throws(NodeError) -> UInt256? {
        guard let value, value != .null else { return nil }
        return try quantity(value, field: field)
    }

    /// 32 bytes of `0x`-hex.
    package func bytes32(_ value: JSONValue?, field: String) throws(NodeError) -> Bytes32 {
        try read(value, field) { (json) throws(Problem) in
            try json.string { (text) throws(HexError) in try Bytes32(hex: text) }
        }
    }

    /// A 20-byte address.
    package func address(_ value: JSONValue?, field: String) throws(NodeError) -> Address {
        try read(value, field) { (json) throws(Problem) in try json.address() }
    }

    /// An address that may be absent or `null`.
    package func optionalAddress(_ value: JSONValue?, field: String) throws(NodeError) -> Address? {
        guard let value, value != .null else { return nil }
        return try address(value, field: field)
    }

    /// An object, or `nil` for `null`.
    package func optionalObject(_ value: JSONValue, field: String) throws(NodeError) -> JSONObject? {
        guard value != .null else { return nil }
        return try read(value, field) { (json) throws(Problem) in try json.object() }
    }
}
