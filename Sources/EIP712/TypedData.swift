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
        var hasher = Keccak256.Hasher()
        let prefix: [UInt8] = [0x19, 0x01]
        hasher.update(prefix)
        hasher.update(domainSeparator)
        hasher.update(structHash)
        digest = hasher.finalize()
    }
}

/// An `eth_signTypedData_v4` document, parsed and shape-checked but not yet compiled.
public struct TypedData: Sendable {
    /// The `types` object.
    public let types: JSONNode
    /// The `primaryType`.
    public let primaryType: String
    /// The `domain` object.
    public let domain: JSONNode
    /// The `message` value.
    public let message: JSONNode

    /// Reads typed data from a parsed JSON node: the object itself, or a JSON string holding it
    /// (both shapes occur in `eth_signTypedData_v4` params).
    public init(json: JSONNode) throws(EIP712Error) {
        var root = json
        if json.kind == .string {
            do { root = try JSONDocument(bytes: json.withUTF8 { Array($0) }).root } catch {
                throw EIP712Error(.invalidJSON(error))
            }
        }
        guard root.kind == .object else {
            throw EIP712Error(.wrongKind(expected: "typed-data object", actual: root.kindName))
        }
        guard let types = root["types"] else { throw EIP712Error(.missing, at: [.key("types")]) }
        guard types.kind == .object else {
            throw EIP712Error(.wrongKind(expected: "object", actual: types.kindName), at: [.key("types")])
        }
        guard let primary = root["primaryType"] else { throw EIP712Error(.missing, at: [.key("primaryType")]) }
        guard let primaryType = primary.stringValue else {
            throw EIP712Error(.wrongKind(expected: "string", actual: primary.kindName), at: [.key("primaryType")])
        }
        guard let domain = root["domain"] else { throw EIP712Error(.missing, at: [.key("domain")]) }
        guard domain.kind == .object else {
            throw EIP712Error(.wrongKind(expected: "object", actual: domain.kindName), at: [.key("domain")])
        }
        guard let message = root["message"] else { throw EIP712Error(.missing, at: [.key("message")]) }
        self.types = types
        self.primaryType = primaryType
        self.domain = domain
        self.message = message
    }

    /// Reads typed data from a `JSONValue` (the object, or a string holding it).
    public init(json: JSONValue) throws(EIP712Error) {
        try self.init(json: json.document.root)
    }

    /// Parses typed-data JSON text (an object, or a JSON string holding one).
    public init(jsonText: String) throws(EIP712Error) {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: jsonText) } catch { throw EIP712Error(.invalidJSON(error)) }
        try self.init(json: document.root)
    }

    /// Compiles the schema and hashes the domain once, for hashing many messages (see ``CompiledTypedData``).
    /// Byte-identical `types`, `primaryType` and `domain` seen before are answered by
    /// ``EIP712SchemaCache/shared``.
    public func compile() throws(EIP712Error) -> CompiledTypedData {
        try EIP712SchemaCache.shared.compiled(self)
    }

    /// Compiles without consulting any cache.
    public func compileUncached() throws(EIP712Error) -> CompiledTypedData {
        let schema = try EIP712Schema(types: types, domain: domain, primaryType: primaryType)
        return try CompiledTypedData(schema: schema, primaryType: primaryType, domain: domain)
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
        guard value.kind == .number || value.kind == .string else {
            throw EIP712Error(
                .wrongKind(expected: "integer", actual: value.kindName), at: [.key("domain"), .key("chainId")])
        }
        return try value.withUTF8 { (text) throws(EIP712Error) in
            do throws(IntegerTextError) {
                let parsed = try SignedMagnitude(utf8: text)
                guard !parsed.isNegative else { throw IntegerTextError.negative(String(decoding: text, as: UTF8.self)) }
                return parsed.magnitude
            } catch {
                throw EIP712Error(.integer(error), at: [.key("domain"), .key("chainId")])
            }
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
    public init(schema: EIP712Schema, primaryType: String, domain: JSONNode) throws(EIP712Error) {
        guard let primaryIndex = schema.index(of: primaryType) else {
            throw EIP712Error(.undefinedType(primaryType), at: [.key("primaryType")])
        }
        guard let domainIndex = schema.index(of: EIP712Schema.domainTypeName) else {
            throw EIP712Error(.undefinedType(EIP712Schema.domainTypeName), at: [.key("types")])
        }
        do {
            domainSeparator = try schema.hashStruct(index: domainIndex, domain)
        } catch {
            throw error.under(.key("domain"))
        }
        self.schema = schema
        self.primaryIndex = primaryIndex
        self.primaryType = primaryType
    }

    /// Hashes of `message` (a value of the primary type) under this domain.
    public func hashes(message: JSONNode) throws(EIP712Error) -> TypedDataHashes {
        let structHash: Bytes32
        do {
            structHash = try schema.hashStruct(index: primaryIndex, message)
        } catch {
            throw error.under(.key("message"))
        }
        return TypedDataHashes(domainSeparator: domainSeparator, structHash: structHash)
    }

    /// Hashes of `message` given as a `JSONValue`.
    public func hashes(message: JSONValue) throws(EIP712Error) -> TypedDataHashes {
        try hashes(message: message.document.root)
    }

    /// The digest of `message` under this domain.
    public func digest(message: JSONNode) throws(EIP712Error) -> Bytes32 { try hashes(message: message).digest }
}
