import EthereumPrimitives

/// The struct definitions of the typed data the preview recognises, exactly as the standards define them
/// (EIP-2612, Uniswap Permit2, ERC-3009). A document is recognised only when its primary type and every
/// struct it uses have exactly these fields, names and types, in this order.
enum TypedDataShapes {
    typealias Fields = [(name: String, type: String)]

    static let permit: Fields = [
        ("owner", "address"), ("spender", "address"), ("value", "uint256"), ("nonce", "uint256"),
        ("deadline", "uint256"),
    ]
    /// DAI's pre-EIP-2612 permit (`allowed` true means an unlimited allowance).
    static let daiPermit: Fields = [
        ("holder", "address"), ("spender", "address"), ("nonce", "uint256"), ("expiry", "uint256"),
        ("allowed", "bool"),
    ]
    static let permitDetails: Fields = [
        ("token", "address"), ("amount", "uint160"), ("expiration", "uint48"), ("nonce", "uint48"),
    ]
    static let permitSingle: Fields = [
        ("details", "PermitDetails"), ("spender", "address"), ("sigDeadline", "uint256"),
    ]
    static let permitBatch: Fields = [
        ("details", "PermitDetails[]"), ("spender", "address"), ("sigDeadline", "uint256"),
    ]
    static let tokenPermissions: Fields = [("token", "address"), ("amount", "uint256")]
    static let permitTransferFrom: Fields = [
        ("permitted", "TokenPermissions"), ("spender", "address"), ("nonce", "uint256"), ("deadline", "uint256"),
    ]
    static let permitBatchTransferFrom: Fields = [
        ("permitted", "TokenPermissions[]"), ("spender", "address"), ("nonce", "uint256"), ("deadline", "uint256"),
    ]
    static let authorization: Fields = [
        ("from", "address"), ("to", "address"), ("value", "uint256"), ("validAfter", "uint256"),
        ("validBefore", "uint256"), ("nonce", "bytes32"),
    ]
    static let cancelAuthorization: Fields = [("authorizer", "address"), ("nonce", "bytes32")]

    /// The fields of struct `name` in a `types` object, or `nil` when it is not declared or malformed.
    static func fields(of name: String, in types: JSONValue) -> Fields? {
        guard case .array(let list)? = types[name] else { return nil }
        var fields: Fields = []
        for entry in list {
            guard let fieldName = entry["name"]?.stringValue, let type = entry["type"]?.stringValue else { return nil }
            fields.append((fieldName, type))
        }
        return fields
    }

    /// Whether struct `name` in `types` has exactly `expected`.
    static func matches(_ name: String, _ expected: Fields, in types: JSONValue) -> Bool {
        guard let actual = fields(of: name, in: types), actual.count == expected.count else { return false }
        return zip(actual, expected).allSatisfy { $0.name == $1.name && $0.type == $1.type }
    }
}
