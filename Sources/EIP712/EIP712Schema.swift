import EthereumPrimitives

/// A compiled set of EIP-712 struct types: fields resolved, `encodeType` strings hashed once.
/// Hashing many messages of one schema reuses it.
public struct EIP712Schema: Sendable {
    /// The most `encodeType` bytes compiling one schema hashes; more is refused with
    /// ``EIP712Error/Reason/typesTooLarge(limit:)``.
    public static let maximumEncodeTypeBytes = TypeHasher.maximumEncodeTypeBytes

    /// The longest `types` object compiled, in bytes of JSON text (256 MiB); longer ones are refused
    /// with ``EIP712Error/Reason/typesObjectTooLarge(limit:)``.
    public static let maximumTypesLength = 1 << 28

    /// The name EIP-712 reserves for the domain struct.
    public static let domainTypeName = SchemaCompiler.domainTypeName.utf8Bytes.text

    /// Canonical domain fields in canonical order, with their types.
    public static let canonicalDomainFields: [(name: String, type: String)] = SchemaCompiler.canonicalDomain.map {
        ($0.name.utf8Bytes.text, $0.type.utf8Bytes.text)
    }

    typealias Span = SchemaArena.Span

    struct FieldSpec: Sendable {
        var name: Span
        var typeName: Span
        var encoding: Encoding
    }

    struct StructSpec: Sendable {
        var name: Span
        /// This struct's own part of `encodeType`: `Name(type name,…)`.
        var segment: Span
        var fields: Range<Int>
        var typeHash: Bytes32?
    }

    /// Names, type strings and `encodeType` segments; spans index it.
    let arena: SchemaArena
    let fields: [FieldSpec]
    let structs: [StructSpec]
    let arrays: [ArraySpec]

    /// Compiles `types` (the typed-data `types` object). When it declares no `EIP712Domain`, one is derived
    /// from `domain`'s keys in canonical order. Type hashes are computed for the structs reachable from
    /// `primaryType` and the domain (for all structs when `primaryType` is nil). Error paths start at `types`.
    public init(types: JSONNode, domain: JSONNode?, primaryType: String? = nil) throws(EIP712Error) {
        try self.init(document: types.document, types: types.index, domain: domain, primaryType: primaryType)
    }

    /// Compiles the `types` object at node `types` of `document` (see ``init(types:domain:primaryType:)``).
    init(document: JSONDocument, types: Int, domain: JSONNode?, primaryType: String?) throws(EIP712Error) {
        let typesLength = document.node(at: types).sourceLength
        // Arena spans are 32-bit and the arena holds up to twice the `types` text.
        guard typesLength <= Self.maximumTypesLength else {
            throw EIP712Error(.typesObjectTooLarge(limit: Self.maximumTypesLength), at: [.key("types")])
        }
        var compiler = SchemaCompiler(document: document, typesSourceLength: typesLength)
        do {
            try compiler.compile(types: types, domain: domain)
        } catch {
            compiler.discard()
            throw error
        }
        let arena = compiler.writer.finish()
        var structs = compiler.structs
        let fields = compiler.fields
        let arrays = compiler.arrays
        var roots: [Int] = []
        if let primaryType {
            guard let index = Self.lookup(primaryType, arena: arena, structs: structs) else {
                throw EIP712Error(.undefinedType(primaryType), at: [.key("primaryType")])
            }
            roots.append(index)
            if let domainIndex = Self.lookup(Self.domainTypeName, arena: arena, structs: structs) {
                roots.append(domainIndex)
            }
        } else {
            roots = Array(structs.indices)
        }
        try TypeHasher.hashReachable(
            from: roots, structs: &structs, fields: fields, arrays: arrays, arena: arena.bytes)
        self.arena = arena
        self.fields = fields
        self.structs = structs
        self.arrays = arrays
    }

    /// Compiles `types` given as a `JSONValue`.
    public init(types: JSONValue, domain: JSONValue?, primaryType: String? = nil) throws(EIP712Error) {
        try self.init(types: types.document.root, domain: domain?.document.root, primaryType: primaryType)
    }

    static func lookup(_ name: String, arena: SchemaArena, structs: [StructSpec]) -> Int? {
        var name = name
        return name.withUTF8 { target in structs.firstIndex { arena.equals($0.name, target) } }
    }

    func text(_ span: Span) -> String { arena.text(span) }

    /// Roughly the memory this schema holds (its arena and tables), for cache bounds.
    var approximateByteSize: Int {
        arena.count + fields.count * MemoryLayout<FieldSpec>.stride + structs.count * MemoryLayout<StructSpec>.stride
            + arrays.count * MemoryLayout<ArraySpec>.stride
    }

    /// Names of every struct type, in declaration order (a derived `EIP712Domain` last).
    public var typeNames: [String] { structs.map { text($0.name) } }

    /// Index of the struct type named `name`.
    public func index(of name: String) -> Int? { Self.lookup(name, arena: arena, structs: structs) }

    /// Members of the struct named `name`: (name, type as written, resolved type).
    public func fields(of name: String) -> [(name: String, typeName: String, type: FieldType)]? {
        guard let index = index(of: name) else { return nil }
        return fields[structs[index].fields].map { (text($0.name), text($0.typeName), fieldType($0.encoding)) }
    }

    func fieldType(_ encoding: Encoding) -> FieldType {
        switch encoding {
        case .uint(let bits): .uint(bits: bits)
        case .int(let bits): .int(bits: bits)
        case .bool: .bool
        case .address: .address
        case .fixedBytes(let n): .fixedBytes(n)
        case .bytes: .bytes
        case .string: .string
        case .structure(let index): .structure(index)
        case .array(let index): .array(fieldType(arrays[index].element), length: arrays[index].length)
        }
    }

    /// `encodeType` of the struct named `name`: it first, then its transitive dependencies by code point.
    public func encodeType(of name: String) -> String? {
        guard let index = index(of: name) else { return nil }
        var bytes: [UInt8] = []
        TypeHasher.encodeType(index, structs: structs, fields: fields, arrays: arrays, arena: arena.bytes) {
            bytes.append(contentsOf: $0)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `typeHash` of the struct named `name` (computed on demand when it was not reachable at compile time).
    public func typeHash(of name: String) -> Bytes32? {
        guard let index = index(of: name) else { return nil }
        return typeHash(index)
    }

    @inline(__always) func typeHash(_ index: Int) -> Bytes32 {
        if let hash = structs[index].typeHash { return hash }
        return withExtendedLifetime(arena) {
            TypeHasher.typeHash(index, structs: structs, fields: fields, arrays: arrays, arena: arena.bytes)
        }
    }

    /// `hashStruct` of `value` as the struct named `name`; error paths are relative to `value`.
    public func hashStruct(_ name: String, _ value: JSONNode) throws(EIP712Error) -> Bytes32 {
        guard let index = index(of: name) else { throw EIP712Error(.undefinedType(name)) }
        return try hashStruct(index: index, value)
    }

    /// `hashStruct` of `value` as struct number `index`.
    public func hashStruct(index: Int, _ value: JSONNode) throws(EIP712Error) -> Bytes32 {
        try withExtendedLifetime((arena, value.document)) { () throws(EIP712Error) in
            try ValueEncoder(schema: self, names: arena.bytes, document: value.document).hashStruct(index, value.index)
        }
    }
}
