import EthereumPrimitives

/// Reads JSON-RPC result values strictly, turning every mismatch into ``NodeError/invalidResponse(method:reason:)``.
package struct NodeResponseReader {
    /// The method whose result is being read (for error messages).
    package let method: String

    /// A reader for the result of `method`.
    package init(method: String) { self.method = method }

    /// The error for a result that is not what `method` returns.
    package func fail(_ reason: String) -> NodeError { .invalidResponse(method: method, reason: reason) }

    /// A `0x`-hex quantity string (never a JSON number, never through `Double`).
    package func quantity(_ value: JSONValue?, field: String) throws(NodeError) -> UInt256 {
        guard let value else { throw fail("\(field) is missing") }
        guard case .string(let text) = value else { throw fail("\(field) is a \(value.kindName), not a hex quantity") }
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else {
            throw fail("\(field) \(EchoedText.abbreviated(text).debugDescription) is not a hex quantity")
        }
        do { return try UInt256(text: text) } catch {
            throw fail("\(field) \(EchoedText.abbreviated(text).debugDescription): \(error)")
        }
    }

    /// A quantity that may be absent or `null`.
    package func optionalQuantity(_ value: JSONValue?, field: String) throws(NodeError) -> UInt256? {
        guard let value, value != .null else { return nil }
        return try quantity(value, field: field)
    }

    /// 32 bytes of `0x`-hex.
    package func bytes32(_ value: JSONValue?, field: String) throws(NodeError) -> Bytes32 {
        guard let value else { throw fail("\(field) is missing") }
        guard case .string(let text) = value else { throw fail("\(field) is a \(value.kindName), not 32 hex bytes") }
        do { return try Bytes32(hex: text) } catch {
            throw fail("\(field) \(EchoedText.abbreviated(text).debugDescription): \(error)")
        }
    }

    /// A 20-byte address.
    package func address(_ value: JSONValue?, field: String) throws(NodeError) -> Address {
        guard let value else { throw fail("\(field) is missing") }
        guard case .string(let text) = value else { throw fail("\(field) is a \(value.kindName), not an address") }
        do { return try Address(text) } catch { throw fail("\(field): \(error)") }
    }

    /// An address that may be absent or `null`.
    package func optionalAddress(_ value: JSONValue?, field: String) throws(NodeError) -> Address? {
        guard let value, value != .null else { return nil }
        return try address(value, field: field)
    }

    /// An object, or `nil` for `null`.
    package func optionalObject(_ value: JSONValue, field: String) throws(NodeError) -> JSONObject? {
        switch value {
        case .null: return nil
        case .object(let object): return object
        default: throw fail("\(field) is a \(value.kindName), not an object or null")
        }
    }
}
