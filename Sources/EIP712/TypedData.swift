import EthereumPrimitives

/// The three hashes of a typed-data signature request.
public struct TypedDataHashes: Sendable, Equatable {
    /// hashStruct(EIP712Domain, domain).
    public let domainSeparator: Bytes32
    /// hashStruct(primaryType, message).
    public let structHash: Bytes32
    /// keccak256(0x19 0x01 ‖ domainSeparator ‖ structHash): what gets signed.
    public let digest: Bytes32

    /// Combines a domain separator and a struct hash into the digest.
    public init(domainSeparator: Bytes32, structHash: Bytes32) {
        self.domainSeparator = domainSeparator
        self.structHash = structHash
        var buffer = [UInt8](repeating: 0, count: 66)
        buffer[0] = 0x19
        buffer[1] = 0x01
        domainSeparator.withUnsafeBytes { for i in 0..<32 { buffer[2 + i] = $0[i] } }
        structHash.withUnsafeBytes { for i in 0..<32 { buffer[34 + i] = $0[i] } }
        digest = Keccak256.hash(buffer)
    }
}

/// An `eth_signTypedData_v4` document, parsed and shape-checked but not yet compiled.
public struct TypedData: Sendable {
    /// The `types` object.
    public let types: JSONValue
    /// The `primaryType`.
    public let primaryType: String
    /// The `domain` object.
    public let domain: JSONObject
    /// The `message` value.
    public let message: JSONValue

    /// Reads typed data from a parsed JSON value: the object itself, or a JSON string holding it
    /// (both shapes occur in `eth_signTypedData_v4` params).
    public init(json: JSONValue) throws(EIP712Error) {
        var value = json
        if case .string(let text) = json {
            do { value = try JSONValue(parsing: text) } catch { throw EIP712Error(.invalidJSON(error)) }
        }
        guard case .object(let root) = value else {
            throw EIP712Error(.wrongKind(expected: "typed-data object", actual: value.kindName))
        }
        guard let types = root["types"] else { throw EIP712Error(.missing, at: [.key("types")]) }
        guard case .object = types else {
            throw EIP712Error(.wrongKind(expected: "object", actual: types.kindName), at: [.key("types")])
        }
        guard let primary = root["primaryType"] else { throw EIP712Error(.missing, at: [.key("primaryType")]) }
        guard case .string(let primaryType) = primary else {
            throw EIP712Error(.wrongKind(expected: "string", actual: primary.kindName), at: [.key("primaryType")])
        }
        guard let domainValue = root["domain"] else { throw EIP712Error(.missing, at: [.key("domain")]) }
        guard case .object(let domain) = domainValue else {
            throw EIP712Error(.wrongKind(expected: "object", actual: domainValue.kindName), at: [.key("domain")])
        }
        guard let message = root["message"] else { throw EIP712Error(.missing, at: [.key("message")]) }
        self.types = types
        self.primaryType = primaryType
        self.domain = domain
        self.message = message
    }

    /// Parses typed-data JSON text (an object, or a JSON string holding one).
    public init(jsonText: String) throws(EIP712Error) {
        let value: JSONValue
        do { value = try JSONValue(parsing: jsonText) } catch { throw EIP712Error(.invalidJSON(error)) }
        try self.init(json: value)
    }

    /// Compiles the schema and hashes the domain once, for hashing many messages (see ``CompiledTypedData``).
    public func compile() throws(EIP712Error) -> CompiledTypedData {
        try CompiledTypedData(schema: EIP712Schema(types: types, domain: domain), primaryType: primaryType, domain: domain)
    }

    /// Domain separator, struct hash and digest.
    public func hashes() throws(EIP712Error) -> TypedDataHashes {
        try compile().hashes(message: message)
    }

    /// The digest to sign.
    public func digest() throws(EIP712Error) -> Bytes32 { try hashes().digest }

    /// `domain.chainId` as an integer (number, decimal string or hex string), or `nil` when absent.
    public func domainChainId() throws(EIP712Error) -> UInt256? {
        guard let value = domain["chainId"] else { return nil }
        let text: String
        switch value {
        case .number(let t), .string(let t): text = t
        default:
            throw EIP712Error(.wrongKind(expected: "integer", actual: value.kindName), at: [.key("domain"), .key("chainId")])
        }
        do { return try UInt256(text: text) } catch {
            throw EIP712Error(.integer(error), at: [.key("domain"), .key("chainId")])
        }
    }
}

/// Typed data whose schema is compiled and whose domain separator is computed: hashing a message
/// costs only its `hashStruct` and the final digest.
public struct CompiledTypedData: Sendable {
    /// The compiled types.
    public let schema: EIP712Schema
    /// Index of the primary type in ``schema``.
    public let primaryIndex: Int
    /// The primary type's name.
    public let primaryType: String
    /// hashStruct(EIP712Domain, domain).
    public let domainSeparator: Bytes32

    /// Binds a compiled schema to a primary type and a domain.
    public init(schema: EIP712Schema, primaryType: String, domain: JSONObject) throws(EIP712Error) {
        guard let primaryIndex = schema.index(of: primaryType) else {
            throw EIP712Error(.undefinedType(primaryType), at: [.key("primaryType")])
        }
        guard let domainIndex = schema.index(of: EIP712Schema.domainTypeName) else {
            throw EIP712Error(.undefinedType(EIP712Schema.domainTypeName), at: [.key("types")])
        }
        do {
            domainSeparator = try schema.hashStruct(index: domainIndex, .object(domain))
        } catch {
            throw error.under(.key("domain"))
        }
        self.schema = schema
        self.primaryIndex = primaryIndex
        self.primaryType = primaryType
    }

    /// Hashes of `message` (a value of the primary type) under this domain.
    public func hashes(message: JSONValue) throws(EIP712Error) -> TypedDataHashes {
        let structHash: Bytes32
        do {
            structHash = try schema.hashStruct(index: primaryIndex, message)
        } catch {
            throw error.under(.key("message"))
        }
        return TypedDataHashes(domainSeparator: domainSeparator, structHash: structHash)
    }

    /// The digest of `message` under this domain.
    public func digest(message: JSONValue) throws(EIP712Error) -> Bytes32 { try hashes(message: message).digest }
}
