import EthereumPrimitives

/// Builds the arena, field and struct tables of an ``EIP712Schema`` from the `types` object.
struct SchemaCompiler {
    var arena: [UInt8] = []
    var fields: [EIP712Schema.FieldSpec] = []
    var structs: [EIP712Schema.StructSpec] = []
    /// Per struct: the JSON array of its field declarations (nil for a derived domain).
    private var declarations: [JSONNode?] = []
    private var derivedDomainFields: [(name: String, type: String)] = []

    init() { arena.reserveCapacity(512) }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) -> EIP712Schema.Span {
        let start = Int32(arena.count)
        arena.append(contentsOf: bytes)
        return EIP712Schema.Span(start: start, end: Int32(arena.count))
    }

    mutating func append(_ text: String) -> EIP712Schema.Span {
        var text = text
        return text.withUTF8 { append($0) }
    }

    mutating func compile(types: JSONNode, domain: JSONNode?) throws(EIP712Error) {
        guard types.kind == .object else {
            throw EIP712Error(.wrongKind(expected: "object", actual: types.kindName), at: [.key("types")])
        }
        structs.reserveCapacity(types.count + 1)
        var hasDomain = false
        for (key, value) in types.members {
            let name = key.withUTF8 { append($0) }
            let valid = key.withUTF8 { TypeGrammar.isIdentifier($0) && TypeGrammar.elementary($0) == nil && !TypeGrammar.looksElementary($0) }
            guard valid else {
                let text = key.stringValue ?? ""
                throw EIP712Error(.invalidType(text), at: [.key("types"), .key(text)])
            }
            if key.withUTF8({ TypeGrammar.equals($0, "EIP712Domain") }) { hasDomain = true }
            structs.append(EIP712Schema.StructSpec(name: name, fields: 0..<0, typeHash: nil))
            declarations.append(value)
        }
        if !hasDomain, let domain {
            try deriveDomain(from: domain)
        }
        for index in structs.indices {
            try resolveFields(of: index)
        }
        if let domainIndex = EIP712Schema.lookup(EIP712Schema.domainTypeName, arena: arena, structs: structs) {
            try checkDomainDeclaration(domainIndex)
        }
    }

    private mutating func deriveDomain(from domain: JSONNode) throws(EIP712Error) {
        guard domain.kind == .object else { return }
        for (key, _) in domain.members {
            let known = EIP712Schema.canonicalDomainFields.contains { field in
                var name = field.name
                return name.withUTF8 { key.equals(utf8: $0) }
            }
            guard known else {
                let text = key.stringValue ?? ""
                throw EIP712Error(.nonStandardDomainField(text), at: [.key("domain"), .key(text)])
            }
        }
        derivedDomainFields = EIP712Schema.canonicalDomainFields.filter { domain[$0.name] != nil }
        structs.append(EIP712Schema.StructSpec(name: append(EIP712Schema.domainTypeName), fields: 0..<0, typeHash: nil))
        declarations.append(nil)
    }

    private mutating func resolveFields(of index: Int) throws(EIP712Error) {
        let first = fields.count
        guard let list = declarations[index] else {
            for field in derivedDomainFields {
                let name = append(field.name)
                let typeName = append(field.type)
                var typeText = field.type
                let type = typeText.withUTF8 { TypeGrammar.elementary($0) } ?? .string
                fields.append(EIP712Schema.FieldSpec(name: name, typeName: typeName, type: type))
            }
            structs[index].fields = first..<fields.count
            return
        }
        let structName = String(decoding: arena[Int(structs[index].name.start)..<Int(structs[index].name.end)], as: UTF8.self)
        let path: [PathSegment] = [.key("types"), .key(structName)]
        guard list.kind == .array else {
            throw EIP712Error(.wrongKind(expected: "array", actual: list.kindName), at: path)
        }
        for (i, entry) in list.elements.enumerated() {
            let at = path + [.index(i)]
            guard entry.kind == .object else {
                throw EIP712Error(.wrongKind(expected: "object", actual: entry.kindName), at: at)
            }
            guard let nameNode = entry["name"] else { throw EIP712Error(.missing, at: at + [.key("name")]) }
            guard nameNode.kind == .string, nameNode.withUTF8({ !$0.isEmpty }) else {
                throw EIP712Error(.wrongKind(expected: "non-empty string", actual: nameNode.kindName), at: at + [.key("name")])
            }
            guard let typeNode = entry["type"] else { throw EIP712Error(.missing, at: at + [.key("type")]) }
            guard typeNode.kind == .string else {
                throw EIP712Error(.wrongKind(expected: "string", actual: typeNode.kindName), at: at + [.key("type")])
            }
            for earlier in fields[first...] where nameNode.withUTF8({ equalSpan(earlier.name, $0) }) {
                throw EIP712Error(.duplicateField(nameNode.stringValue ?? ""), at: at + [.key("name")])
            }
            let type = try typeNode.withUTF8 { (bytes) throws(EIP712Error) in
                try resolve(bytes, at: at + [.key("type")])
            }
            let name = nameNode.withUTF8 { append($0) }
            let typeName = typeNode.withUTF8 { append($0) }
            fields.append(EIP712Schema.FieldSpec(name: name, typeName: typeName, type: type))
        }
        structs[index].fields = first..<fields.count
    }

    private func equalSpan(_ span: EIP712Schema.Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        span.count == bytes.count && arena[Int(span.start)..<Int(span.end)].elementsEqual(bytes)
    }

    private func resolve(_ bytes: UnsafeBufferPointer<UInt8>, at path: [PathSegment]) throws(EIP712Error) -> FieldType {
        guard let split = TypeGrammar.split(bytes) else {
            throw EIP712Error(.invalidType(String(decoding: bytes, as: UTF8.self)), at: path)
        }
        var type: FieldType
        if let elementary = TypeGrammar.elementary(split.base) {
            type = elementary
        } else if let index = structs.firstIndex(where: { equalSpan($0.name, split.base) }) {
            type = .structure(index)
        } else {
            throw EIP712Error(.undefinedType(String(decoding: split.base, as: UTF8.self)), at: path)
        }
        for dimension in split.dimensions { type = .array(type, length: dimension) }
        return type
    }

    private func checkDomainDeclaration(_ index: Int) throws(EIP712Error) {
        for (i, field) in fields[structs[index].fields].enumerated() {
            let name = String(decoding: arena[Int(field.name.start)..<Int(field.name.end)], as: UTF8.self)
            let type = String(decoding: arena[Int(field.typeName.start)..<Int(field.typeName.end)], as: UTF8.self)
            guard EIP712Schema.canonicalDomainFields.contains(where: { $0.name == name && $0.type == type }) else {
                throw EIP712Error(.nonStandardDomainField(name), at: [.key("types"), .key(EIP712Schema.domainTypeName), .index(i)])
            }
        }
    }
}

/// `encodeType` and `typeHash`.
enum TypeHasher {
    /// Feeds the `encodeType` bytes of struct `index` to `sink`, piece by piece.
    static func encodeType(
        _ index: Int, structs: [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec], arena: [UInt8],
        _ sink: (UnsafeRawBufferPointer) -> Void
    ) {
        var seen = [Bool](repeating: false, count: structs.count)
        seen[index] = true
        var stack = [index]
        var dependencies: [Int] = []
        while let next = stack.popLast() {
            for field in fields[structs[next].fields] {
                if let referenced = field.type.structIndex, !seen[referenced] {
                    seen[referenced] = true
                    stack.append(referenced)
                    dependencies.append(referenced)
                }
            }
        }
        arena.withUnsafeBytes { bytes in
            func slice(_ span: EIP712Schema.Span) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: bytes[Int(span.start)..<Int(span.end)])
            }
            dependencies.sort { slice(structs[$0].name).lexicographicallyPrecedes(slice(structs[$1].name)) }
            let open: StaticString = "("
            let close: StaticString = ")"
            let space: StaticString = " "
            let comma: StaticString = ","
            func emit(_ s: StaticString) { sink(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)) }
            for structIndex in [index] + dependencies {
                sink(slice(structs[structIndex].name))
                emit(open)
                for (i, field) in fields[structs[structIndex].fields].enumerated() {
                    if i > 0 { emit(comma) }
                    sink(slice(field.typeName))
                    emit(space)
                    sink(slice(field.name))
                }
                emit(close)
            }
        }
    }

    /// Computes the type hash of every struct reachable from `roots`.
    static func hashReachable(
        from roots: [Int], structs: inout [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec], arena: [UInt8]
    ) {
        var seen = [Bool](repeating: false, count: structs.count)
        var stack = roots
        for root in roots { seen[root] = true }
        while let next = stack.popLast() {
            var hasher = Keccak256.Hasher()
            encodeType(next, structs: structs, fields: fields, arena: arena) { hasher.update($0) }
            structs[next].typeHash = hasher.finalize()
            for field in fields[structs[next].fields] {
                if let referenced = field.type.structIndex, !seen[referenced] {
                    seen[referenced] = true
                    stack.append(referenced)
                }
            }
        }
    }
}
