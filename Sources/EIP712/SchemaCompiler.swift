import EthereumPrimitives

/// Builds the arena, field, struct and array tables of an ``EIP712Schema`` from the `types` object.
///
/// Works on node indices of the document (no per-node reference counting) and writes every name
/// once: first the struct names, then per struct its `encodeType` member list `Name(type name,…)`,
/// whose spans the fields point into. A type hash is then the Keccak of a few arena slices.
struct SchemaCompiler {
    typealias Span = SchemaArena.Span

    private(set) var writer: SchemaArena.Writer
    private(set) var fields: [EIP712Schema.FieldSpec] = []
    private(set) var structs: [EIP712Schema.StructSpec] = []
    private(set) var arrays: [ArraySpec] = []
    private let document: JSONDocument
    /// Canonical domain fields present in `domain`, when the domain type is derived (bit i = field i).
    private var derivedDomainMask = 0
    private var derivesDomain = false
    /// Struct indices by name, built on the first lookup in a schema of more than
    /// ``linearSearchLimit`` structs.
    private var structsByName: [[UInt8]: Int]?

    /// Up to this many structs (or fields of one struct) are searched one by one; more get a hash
    /// table, so a hostile schema of n names costs O(n), not O(n²).
    static let linearSearchLimit = 16

    static let nameKey: StaticString = "name"
    static let typeKey: StaticString = "type"
    static let domainTypeName: StaticString = "EIP712Domain"

    /// Canonical domain fields in canonical order, as bytes.
    static let canonicalDomain: [(name: StaticString, type: StaticString)] = [
        ("name", "string"), ("version", "string"),
        ("chainId", "uint256"), ("verifyingContract", "address"),
        ("salt", "bytes32"),
    ]

    init(document: JSONDocument, typesSourceLength: Int) {
        self.document = document
        // Names appear twice (name list and segment); every other byte once: twice the source bounds it.
        writer = SchemaArena.Writer(capacity: 2 * typesSourceLength + 128)
    }

    /// Compiles the `types` object at node `types`; `domain` is the domain object, if any.
    mutating func compile(types: Int, domain: JSONNode?) throws(EIP712Error) {
        guard document.kind(at: types) == .object else {
            throw EIP712Error(
                .wrongKind(expected: "object", actual: JSONValue.kindName(of: document.kind(at: types))),
                at: [.key("types")])
        }
        let memberCount = document.count(at: types)
        structs.reserveCapacity(memberCount + 1)
        /// The declared `EIP712Domain`, if any.
        var declaredDomain: Int?
        var key = types + 1
        for _ in 0..<memberCount {
            let bytes = document.unsafeUTF8(at: key)
            guard TypeGrammar.isIdentifier(bytes), TypeGrammar.elementary(bytes) == nil,
                !TypeGrammar.looksElementary(bytes)
            else {
                let text = String(decoding: bytes, as: UTF8.self)
                throw EIP712Error(.invalidType(text), at: [.key("types"), .key(text)])
            }
            if SchemaArena.equal(bytes, Self.domainTypeName.utf8Bytes) { declaredDomain = structs.count }
            let name = writer.append(bytes)
            structs.append(EIP712Schema.StructSpec(name: name, segment: name, fields: 0..<0, typeHash: nil))
            key = document.next(after: key + 1)
        }
        if declaredDomain == nil, let domain {
            try deriveDomain(from: domain)
        }
        var fieldTotal = 0
        key = types + 1
        for _ in 0..<memberCount {
            fieldTotal += document.count(at: key + 1)
            key = document.next(after: key + 1)
        }
        fields.reserveCapacity(fieldTotal + (derivesDomain ? 5 : 0))
        key = types + 1
        for index in 0..<memberCount {
            try resolveFields(of: index, declaration: key + 1)
            key = document.next(after: key + 1)
        }
        if derivesDomain { writeDerivedDomain(index: memberCount) }
        if let declaredDomain { try checkDomainDeclaration(declaredDomain) }
    }

    /// Frees the arena after a failed compile.
    func discard() { writer.discard() }

    private mutating func deriveDomain(from domain: JSONNode) throws(EIP712Error) {
        guard domain.kind == .object else { return }
        let document = domain.document
        var key = domain.index + 1
        var mask = 0
        for _ in 0..<domain.count {
            let bytes = document.unsafeUTF8(at: key)
            guard let position = Self.canonicalDomain.firstIndex(where: { SchemaArena.equal($0.name.utf8Bytes, bytes) })
            else {
                let text = String(decoding: bytes, as: UTF8.self)
                throw EIP712Error(.nonStandardDomainField(text), at: [.key("domain"), .key(text)])
            }
            mask |= 1 << position
            key = document.next(after: key + 1)
        }
        derivedDomainMask = mask
        derivesDomain = true
        let name = writer.append(Self.domainTypeName.utf8Bytes)
        structs.append(EIP712Schema.StructSpec(name: name, segment: name, fields: 0..<0, typeHash: nil))
    }

    /// The domain type derived from the domain object's keys (no `EIP712Domain` declared).
    private mutating func writeDerivedDomain(index: Int) {
        let first = fields.count
        let start = writer.count
        writer.append(copyOf: structs[index].name)
        writer.append(byte: UInt8(ascii: "("))
        for (position, field) in Self.canonicalDomain.enumerated() where derivedDomainMask & (1 << position) != 0 {
            if fields.count > first { writer.append(byte: UInt8(ascii: ",")) }
            let typeName = writer.append(field.type.utf8Bytes)
            writer.append(byte: UInt8(ascii: " "))
            let name = writer.append(field.name.utf8Bytes)
            let encoding = TypeGrammar.elementary(field.type.utf8Bytes) ?? .string
            fields.append(EIP712Schema.FieldSpec(name: name, typeName: typeName, encoding: encoding))
        }
        writer.append(byte: UInt8(ascii: ")"))
        structs[index].segment = Span(start: Int32(start), end: Int32(writer.count))
        structs[index].fields = first..<fields.count
    }

    private mutating func resolveFields(of index: Int, declaration list: Int) throws(EIP712Error) {
        // Paths are built only when something is wrong.
        func path(_ rest: PathSegment...) -> [PathSegment] {
            [.key("types"), .key(writer.slice(structs[index].name).text)] + rest
        }
        func kindName(_ node: Int) -> String { JSONValue.kindName(of: document.kind(at: node)) }
        guard document.kind(at: list) == .array else {
            throw EIP712Error(.wrongKind(expected: "array", actual: kindName(list)), at: path())
        }
        let first = fields.count
        let start = writer.count
        writer.append(copyOf: structs[index].name)
        writer.append(byte: UInt8(ascii: "("))
        var entry = list + 1
        /// This struct's field names once it has more than ``linearSearchLimit`` fields.
        var fieldNames: Set<[UInt8]>?
        for i in 0..<document.count(at: list) {
            defer { entry = document.next(after: entry) }
            guard document.kind(at: entry) == .object else {
                throw EIP712Error(.wrongKind(expected: "object", actual: kindName(entry)), at: path(.index(i)))
            }
            let (nameNode, typeNode) = members(of: entry)
            guard let nameIndex = nameNode else { throw EIP712Error(.missing, at: path(.index(i), .key("name"))) }
            let nameBytes = document.unsafeUTF8(at: nameIndex)
            guard document.kind(at: nameIndex) == .string, !nameBytes.isEmpty else {
                throw EIP712Error(
                    .wrongKind(expected: "non-empty string", actual: kindName(nameIndex)),
                    at: path(.index(i), .key("name")))
            }
            guard let typeIndex = typeNode else { throw EIP712Error(.missing, at: path(.index(i), .key("type"))) }
            guard document.kind(at: typeIndex) == .string else {
                throw EIP712Error(
                    .wrongKind(expected: "string", actual: kindName(typeIndex)), at: path(.index(i), .key("type")))
            }
            let typeBytes = document.unsafeUTF8(at: typeIndex)
            let duplicate: Bool
            if let inserted = fieldNames?.insert(Array(nameBytes)).inserted {
                duplicate = !inserted
            } else {
                duplicate = fields[first...].contains { SchemaArena.equal(writer.slice($0.name), nameBytes) }
                if !duplicate && fields.count - first == Self.linearSearchLimit {
                    fieldNames = Set(fields[first...].map { Array(writer.slice($0.name)) } + [Array(nameBytes)])
                }
            }
            if duplicate {
                throw EIP712Error(
                    .duplicateField(String(decoding: nameBytes, as: UTF8.self)), at: path(.index(i), .key("name")))
            }
            let encoding: Encoding
            do { encoding = try resolve(typeBytes) } catch {
                throw EIP712Error(error.reason, at: path(.index(i), .key("type")))
            }
            if fields.count > first { writer.append(byte: UInt8(ascii: ",")) }
            let typeName = writer.append(typeBytes)
            writer.append(byte: UInt8(ascii: " "))
            let name = writer.append(nameBytes)
            fields.append(EIP712Schema.FieldSpec(name: name, typeName: typeName, encoding: encoding))
        }
        writer.append(byte: UInt8(ascii: ")"))
        structs[index].segment = Span(start: Int32(start), end: Int32(writer.count))
        structs[index].fields = first..<fields.count
    }

    /// The `name` and `type` members of a field declaration (the usual two-member shape is read directly).
    @inline(__always) private func members(of entry: Int) -> (name: Int?, type: Int?) {
        if document.count(at: entry) == 2 {
            let firstKey = entry + 1
            let secondKey = document.next(after: firstKey + 1)
            if document.string(at: firstKey, equals: Self.nameKey.utf8Bytes)
                && document.string(at: secondKey, equals: Self.typeKey.utf8Bytes)
            {
                return (firstKey + 1, secondKey + 1)
            }
            if document.string(at: firstKey, equals: Self.typeKey.utf8Bytes)
                && document.string(at: secondKey, equals: Self.nameKey.utf8Bytes)
            {
                return (secondKey + 1, firstKey + 1)
            }
        }
        return (
            document.member(of: entry, utf8: Self.nameKey.utf8Bytes),
            document.member(of: entry, utf8: Self.typeKey.utf8Bytes)
        )
    }

    /// The encoding of a member type string (errors carry no path).
    private mutating func resolve(_ bytes: UnsafeBufferPointer<UInt8>) throws(EIP712Error) -> Encoding {
        if let last = bytes.last, last != UInt8(ascii: "]") {
            // No array dimensions: the common case.
            if let elementary = TypeGrammar.elementary(bytes) { return elementary }
            if let index = structIndex(named: bytes) { return .structure(index) }
            throw EIP712Error(.undefinedType(bytes.text))
        }
        guard let split = TypeGrammar.split(bytes) else { throw EIP712Error(.invalidType(bytes.text)) }
        var encoding: Encoding
        if let elementary = TypeGrammar.elementary(split.base) {
            encoding = elementary
        } else if let index = structIndex(named: split.base) {
            encoding = .structure(index)
        } else {
            throw EIP712Error(.undefinedType(split.base.text))
        }
        for dimension in split.dimensions {
            arrays.append(ArraySpec(element: encoding, length: dimension))
            encoding = .array(arrays.count - 1)
        }
        return encoding
    }

    /// The struct named `name`: a linear search in small schemas, a hash table in large ones.
    private mutating func structIndex(named name: UnsafeBufferPointer<UInt8>) -> Int? {
        guard structs.count > Self.linearSearchLimit else {
            return structs.firstIndex { SchemaArena.equal(writer.slice($0.name), name) }
        }
        if structsByName == nil {
            var table: [[UInt8]: Int] = [:]
            table.reserveCapacity(structs.count)
            for (index, spec) in structs.enumerated() { table[Array(writer.slice(spec.name))] = index }
            structsByName = table
        }
        return structsByName?[Array(name)]
    }

    private func checkDomainDeclaration(_ index: Int) throws(EIP712Error) {
        for (i, field) in fields[structs[index].fields].enumerated() {
            let canonical = Self.canonicalDomain.contains { entry in
                SchemaArena.equal(writer.slice(field.name), entry.name.utf8Bytes)
                    && SchemaArena.equal(writer.slice(field.typeName), entry.type.utf8Bytes)
            }
            guard canonical else {
                throw EIP712Error(
                    .nonStandardDomainField(writer.slice(field.name).text),
                    at: [.key("types"), .key(EIP712Schema.domainTypeName), .index(i)])
            }
        }
    }
}

extension StaticString {
    /// The literal's UTF-8 as a buffer (no allocation).
    var utf8Bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount) }
}

extension UnsafeBufferPointer<UInt8> {
    /// The bytes as a String (UTF-8, invalid sequences replaced).
    var text: String { String(decoding: self, as: UTF8.self) }
}
