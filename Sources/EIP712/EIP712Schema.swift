import EthereumPrimitives

/// A compiled set of EIP-712 struct types: fields resolved, `encodeType` strings and type hashes
/// computed once. Hashing many messages of one schema reuses it.
public struct EIP712Schema: Sendable {
    /// One member of a struct type.
    public struct Field: Sendable, Equatable {
        /// Member name.
        public let name: String
        /// Type as written, e.g. `Asset[]`.
        public let typeName: String
        /// Resolved type.
        public let type: FieldType
    }

    /// One struct type.
    public struct StructType: Sendable {
        /// Type name.
        public let name: String
        /// Members in declaration order.
        public let fields: [Field]
        /// `encodeType`: this type first, then every transitively referenced struct sorted by code point.
        public internal(set) var encodedType: String
        /// keccak256(encodedType).
        public internal(set) var typeHash: Bytes32
    }

    /// The name EIP-712 reserves for the domain struct.
    public static let domainTypeName = "EIP712Domain"

    /// Canonical domain fields in canonical order, with their types.
    public static let canonicalDomainFields: [(name: String, type: String)] = [
        ("name", "string"), ("version", "string"), ("chainId", "uint256"), ("verifyingContract", "address"),
        ("salt", "bytes32"),
    ]

    /// Every struct type.
    public private(set) var structs: [StructType]
    private var indexByName: [String: Int]

    /// Compiles `types` (the typed-data `types` object). When it declares no `EIP712Domain`, one is derived from
    /// `domain`'s keys in canonical order. Errors carry paths under `types` (or `domain`).
    public init(types: JSONValue, domain: JSONObject?) throws(EIP712Error) {
        guard case .object(let typesObject) = types else {
            throw EIP712Error(.wrongKind(expected: "object", actual: types.kindName), at: [.key("types")])
        }
        var declarations = typesObject.members
        if typesObject[Self.domainTypeName] == nil, let domain {
            var derived: [JSONValue] = []
            for member in domain.members {
                guard let canonical = Self.canonicalDomainFields.first(where: { $0.name == member.key }) else {
                    throw EIP712Error(.nonStandardDomainField(member.key), at: [.key("domain"), .key(member.key)])
                }
                _ = canonical
            }
            for canonical in Self.canonicalDomainFields where domain[canonical.name] != nil {
                derived.append(
                    .object(JSONObject(["name": .string(canonical.name), "type": .string(canonical.type)])))
            }
            declarations.append(JSONObject.Member(key: Self.domainTypeName, value: .array(derived)))
        }
        var indexByName: [String: Int] = [:]
        for (i, member) in declarations.enumerated() {
            let name = member.key
            guard let first = name.first, first.isIdentifierStart, name.allSatisfy(\.isIdentifierPart),
                FieldType.elementary(Substring(name)) == nil, !FieldType.looksElementary(Substring(name))
            else { throw EIP712Error(.invalidType(name), at: [.key("types"), .key(name)]) }
            indexByName[name] = i
        }
        var structs: [StructType] = []
        structs.reserveCapacity(declarations.count)
        for member in declarations {
            let fields = try Self.resolveFields(member, indexByName: indexByName)
            structs.append(StructType(name: member.key, fields: fields, encodedType: "", typeHash: .zero))
        }
        self.structs = structs
        self.indexByName = indexByName
        if let domainIndex = indexByName[Self.domainTypeName] {
            try checkDomainDeclaration(structs[domainIndex])
        }
        for i in self.structs.indices {
            let encoded = encodeType(structIndex: i)
            self.structs[i].encodedType = encoded
            self.structs[i].typeHash = Keccak256.hash(utf8: encoded)
        }
    }

    private static func resolveFields(
        _ member: JSONObject.Member, indexByName: [String: Int]
    ) throws(EIP712Error) -> [Field] {
        let path: [PathSegment] = [.key("types"), .key(member.key)]
        guard case .array(let list) = member.value else {
            throw EIP712Error(.wrongKind(expected: "array", actual: member.value.kindName), at: path)
        }
        var fields: [Field] = []
        fields.reserveCapacity(list.count)
        for (i, entry) in list.enumerated() {
            let at = path + [.index(i)]
            guard case .object(let object) = entry else {
                throw EIP712Error(.wrongKind(expected: "object", actual: entry.kindName), at: at)
            }
            guard let nameValue = object["name"] else { throw EIP712Error(.missing, at: at + [.key("name")]) }
            guard case .string(let name) = nameValue, !name.isEmpty else {
                throw EIP712Error(.wrongKind(expected: "non-empty string", actual: nameValue.kindName), at: at + [.key("name")])
            }
            guard let typeValue = object["type"] else { throw EIP712Error(.missing, at: at + [.key("type")]) }
            guard case .string(let typeName) = typeValue else {
                throw EIP712Error(.wrongKind(expected: "string", actual: typeValue.kindName), at: at + [.key("type")])
            }
            if fields.contains(where: { $0.name == name }) {
                throw EIP712Error(.duplicateField(name), at: at + [.key("name")])
            }
            let type = try resolve(typeName, indexByName: indexByName, at: at + [.key("type")])
            fields.append(Field(name: name, typeName: typeName, type: type))
        }
        return fields
    }

    private static func resolve(
        _ typeName: String, indexByName: [String: Int], at path: [PathSegment]
    ) throws(EIP712Error) -> FieldType {
        guard let parsed = TypeName(typeName) else { throw EIP712Error(.invalidType(typeName), at: path) }
        var type: FieldType
        if let elementary = FieldType.elementary(parsed.base) {
            type = elementary
        } else if let index = indexByName[String(parsed.base)] {
            type = .structure(index)
        } else {
            throw EIP712Error(.undefinedType(String(parsed.base)), at: path)
        }
        for dimension in parsed.dimensions { type = .array(type, length: dimension) }
        return type
    }

    private func checkDomainDeclaration(_ domain: StructType) throws(EIP712Error) {
        for (i, field) in domain.fields.enumerated() {
            guard Self.canonicalDomainFields.contains(where: { $0.name == field.name && $0.type == field.typeName })
            else {
                throw EIP712Error(
                    .nonStandardDomainField(field.name), at: [.key("types"), .key(Self.domainTypeName), .index(i)])
            }
        }
    }

    private func encodeType(structIndex: Int) -> String {
        var seen: Set<Int> = [structIndex]
        var stack = [structIndex]
        while let next = stack.popLast() {
            for field in structs[next].fields {
                if let referenced = Self.structIndex(in: field.type), seen.insert(referenced).inserted {
                    stack.append(referenced)
                }
            }
        }
        seen.remove(structIndex)
        let dependencies = seen.map { structs[$0].name }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var text = ""
        for name in [structs[structIndex].name] + dependencies {
            guard let index = indexByName[name] else { continue }
            text += name + "("
            text += structs[index].fields.map { "\($0.typeName) \($0.name)" }.joined(separator: ",")
            text += ")"
        }
        return text
    }

    private static func structIndex(in type: FieldType) -> Int? {
        switch type {
        case .structure(let index): index
        case .array(let element, _): structIndex(in: element)
        default: nil
        }
    }

    /// Index of the struct type named `name`.
    public func index(of name: String) -> Int? { indexByName[name] }

    /// `encodeType` of the struct named `name`.
    public func encodeType(of name: String) -> String? { indexByName[name].map { structs[$0].encodedType } }

    /// `typeHash` of the struct named `name`.
    public func typeHash(of name: String) -> Bytes32? { indexByName[name].map { structs[$0].typeHash } }

    /// `hashStruct` of `value` as the struct named `name`; error paths are relative to `value`.
    public func hashStruct(_ name: String, _ value: JSONValue) throws(EIP712Error) -> Bytes32 {
        guard let index = indexByName[name] else { throw EIP712Error(.undefinedType(name)) }
        return try hashStruct(index: index, value)
    }

    /// `hashStruct` of `value` as struct number `index`.
    public func hashStruct(index: Int, _ value: JSONValue) throws(EIP712Error) -> Bytes32 {
        guard case .object(let object) = value else {
            throw EIP712Error(.wrongKind(expected: "object", actual: value.kindName))
        }
        let type = structs[index]
        var hasher = Keccak256.Hasher()
        hasher.update(type.typeHash)
        let members = object.members
        for (i, field) in type.fields.enumerated() {
            let fieldValue: JSONValue
            if i < members.count && members[i].key == field.name {
                fieldValue = members[i].value
            } else if let found = object[field.name] {
                fieldValue = found
            } else {
                throw EIP712Error(.missing, at: [.key(field.name)])
            }
            do {
                hasher.update(try encodeValue(field.type, fieldValue))
            } catch {
                throw error.under(.key(field.name))
            }
        }
        if members.count != type.fields.count {
            for member in members where !type.fields.contains(where: { $0.name == member.key }) {
                throw EIP712Error(.unexpectedField, at: [.key(member.key)])
            }
        }
        return hasher.finalize()
    }

    /// The 32-byte `encodeData` word of one value.
    public func encodeValue(_ type: FieldType, _ value: JSONValue) throws(EIP712Error) -> Bytes32 {
        switch type {
        case .uint(let bits):
            let text = try integerText(value)
            do {
                return try SignedMagnitude(text: text).uintWord(bits: bits, text: text)
            } catch {
                throw EIP712Error(.integer(Self.relabel(error, type: "uint\(bits)")))
            }
        case .int(let bits):
            let text = try integerText(value)
            do {
                return try SignedMagnitude(text: text).intWord(bits: bits, text: text)
            } catch {
                throw EIP712Error(.integer(Self.relabel(error, type: "int\(bits)")))
            }
        case .bool:
            guard case .bool(let flag) = value else {
                throw EIP712Error(.wrongKind(expected: "boolean", actual: value.kindName))
            }
            var word = Bytes32.zero
            if flag { word[31] = 1 }
            return word
        case .address:
            let text = try stringValue(value, expected: "address string")
            do { return try Address(text).word } catch { throw EIP712Error(.address(error)) }
        case .fixedBytes(let n):
            let bytes = try hexBytes(value)
            guard bytes.count == n else { throw EIP712Error(.bytesLength(expected: n, actual: bytes.count)) }
            var word = Bytes32.zero
            for (i, b) in bytes.enumerated() { word[i] = b }
            return word
        case .bytes:
            return Keccak256.hash(try hexBytes(value))
        case .string:
            return Keccak256.hash(utf8: try stringValue(value, expected: "string"))
        case .structure(let index):
            return try hashStruct(index: index, value)
        case .array(let element, let length):
            guard case .array(let elements) = value else {
                throw EIP712Error(.wrongKind(expected: "array", actual: value.kindName))
            }
            if let length, elements.count != length {
                throw EIP712Error(.arrayLength(expected: length, actual: elements.count))
            }
            var hasher = Keccak256.Hasher()
            for (i, item) in elements.enumerated() {
                do {
                    hasher.update(try encodeValue(element, item))
                } catch {
                    throw error.under(.index(i))
                }
            }
            return hasher.finalize()
        }
    }

    private static func relabel(_ error: IntegerTextError, type: String) -> IntegerTextError {
        if case .outOfRange(let text, _) = error { return .outOfRange(text, type: type) }
        return error
    }

    @inline(__always)
    private func integerText(_ value: JSONValue) throws(EIP712Error) -> String {
        switch value {
        case .number(let text): return text
        case .string(let text): return text
        default: throw EIP712Error(.wrongKind(expected: "integer", actual: value.kindName))
        }
    }

    @inline(__always)
    private func stringValue(_ value: JSONValue, expected: String) throws(EIP712Error) -> String {
        guard case .string(let text) = value else {
            throw EIP712Error(.wrongKind(expected: expected, actual: value.kindName))
        }
        return text
    }

    private func hexBytes(_ value: JSONValue) throws(EIP712Error) -> [UInt8] {
        let text = try stringValue(value, expected: "0x-hex string")
        do { return try Hex.decode(text) } catch { throw EIP712Error(.hex(error)) }
    }
}
