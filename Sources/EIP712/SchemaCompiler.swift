import EthereumPrimitives

/// Builds the arena, field, struct and array tables of an ``EIP712Schema`` from the `types` object.
struct SchemaCompiler {
    var arena: [UInt8] = []
    var fields: [EIP712Schema.FieldSpec] = []
    var structs: [EIP712Schema.StructSpec] = []
    var arrays: [ArraySpec] = []
    /// Per struct: the JSON array of its field declarations (nil for a derived domain).
    private var declarations: [JSONNode?] = []
    private var derivedDomainFields: [(name: String, type: String)] = []

    private static let nameStorage: StaticString = "name"
    private static let typeStorage: StaticString = "type"
    static var nameKey: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: nameStorage.utf8Start, count: 4) }
    static var typeKey: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: typeStorage.utf8Start, count: 4) }

    init() {}

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) -> EIP712Schema.Span {
        let start = Int32(arena.count)
        arena.append(contentsOf: bytes)
        return EIP712Schema.Span(start: start, end: Int32(arena.count))
    }

    mutating func append(_ text: String) -> EIP712Schema.Span {
        var text = text
        return text.withUTF8 { append($0) }
    }

    func text(_ span: EIP712Schema.Span) -> String {
        String(decoding: arena[Int(span.start)..<Int(span.end)], as: UTF8.self)
    }

    mutating func compile(types: JSONNode, domain: JSONNode?) throws(EIP712Error) {
        guard types.kind == .object else {
            throw EIP712Error(.wrongKind(expected: "object", actual: types.kindName), at: [.key("types")])
        }
        structs.reserveCapacity(types.count + 1)
        arena.reserveCapacity(types.sourceLength + 64)
        declarations.reserveCapacity(types.count + 1)
        var hasDomain = false
        for (key, value) in types.members {
            let valid = key.withUTF8 {
                TypeGrammar.isIdentifier($0) && TypeGrammar.elementary($0) == nil && !TypeGrammar.looksElementary($0)
            }
            guard valid else {
                let text = key.stringValue ?? ""
                throw EIP712Error(.invalidType(text), at: [.key("types"), .key(text)])
            }
            if key.withUTF8({ TypeGrammar.equals($0, "EIP712Domain") }) { hasDomain = true }
            let name = key.withUTF8 { append($0) }
            structs.append(EIP712Schema.StructSpec(name: name, fields: 0..<0, typeHash: nil))
            declarations.append(value)
        }
        if !hasDomain, let domain {
            try deriveDomain(from: domain)
        }
        fields.reserveCapacity(structs.count * 6)
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
            // A domain derived from the domain object's keys (no EIP712Domain declared).
            for field in derivedDomainFields {
                let name = append(field.name)
                let typeName = append(field.type)
                var typeText = field.type
                let encoding = typeText.withUTF8 { TypeGrammar.elementary($0) } ?? .string
                fields.append(EIP712Schema.FieldSpec(name: name, typeName: typeName, encoding: encoding))
            }
            structs[index].fields = first..<fields.count
            return
        }
        // Paths are built only when something is wrong.
        func path(_ rest: PathSegment...) -> [PathSegment] { [.key("types"), .key(text(structs[index].name))] + rest }
        guard list.kind == .array else {
            throw EIP712Error(.wrongKind(expected: "array", actual: list.kindName), at: path())
        }
        let document = list.document
        var entry = list.index + 1
        for i in 0..<document.count(at: list.index) {
            defer { entry = document.next(after: entry) }
            guard document.kind(at: entry) == .object else {
                throw EIP712Error(.wrongKind(expected: "object", actual: document.node(at: entry).kindName), at: path(.index(i)))
            }
            guard let nameIndex = document.member(of: entry, utf8: Self.nameKey) else {
                throw EIP712Error(.missing, at: path(.index(i), .key("name")))
            }
            let nameBytes = document.unsafeUTF8(at: nameIndex)
            guard document.kind(at: nameIndex) == .string, !nameBytes.isEmpty else {
                throw EIP712Error(
                    .wrongKind(expected: "non-empty string", actual: document.node(at: nameIndex).kindName),
                    at: path(.index(i), .key("name")))
            }
            guard let typeIndex = document.member(of: entry, utf8: Self.typeKey) else {
                throw EIP712Error(.missing, at: path(.index(i), .key("type")))
            }
            guard document.kind(at: typeIndex) == .string else {
                throw EIP712Error(
                    .wrongKind(expected: "string", actual: document.node(at: typeIndex).kindName), at: path(.index(i), .key("type")))
            }
            let typeBytes = document.unsafeUTF8(at: typeIndex)
            for earlier in fields[first...] where equalSpan(earlier.name, nameBytes) {
                throw EIP712Error(.duplicateField(String(decoding: nameBytes, as: UTF8.self)), at: path(.index(i), .key("name")))
            }
            let resolved = resolve(typeBytes)
            guard let encoding = resolved.encoding else {
                throw EIP712Error(
                    resolved.problem ?? .invalidType(String(decoding: typeBytes, as: UTF8.self)), at: path(.index(i), .key("type")))
            }
            let name = append(nameBytes)
            let typeName = append(typeBytes)
            fields.append(EIP712Schema.FieldSpec(name: name, typeName: typeName, encoding: encoding))
        }
        structs[index].fields = first..<fields.count
    }

    private func equalSpan(_ span: EIP712Schema.Span, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        span.count == bytes.count && arena[Int(span.start)..<Int(span.end)].elementsEqual(bytes)
    }

    private mutating func resolve(_ bytes: UnsafeBufferPointer<UInt8>) -> (encoding: Encoding?, problem: EIP712Error.Reason?) {
        guard let split = TypeGrammar.split(bytes) else {
            return (nil, .invalidType(String(decoding: bytes, as: UTF8.self)))
        }
        var encoding: Encoding
        if let elementary = TypeGrammar.elementary(split.base) {
            encoding = elementary
        } else if let index = structs.firstIndex(where: { equalSpan($0.name, split.base) }) {
            encoding = .structure(index)
        } else {
            return (nil, .undefinedType(String(decoding: split.base, as: UTF8.self)))
        }
        for dimension in split.dimensions {
            arrays.append(ArraySpec(element: encoding, length: dimension))
            encoding = .array(arrays.count - 1)
        }
        return (encoding, nil)
    }

    private func checkDomainDeclaration(_ index: Int) throws(EIP712Error) {
        for (i, field) in fields[structs[index].fields].enumerated() {
            let canonical = EIP712Schema.canonicalDomainFields.contains { entry in
                var name = entry.name
                var type = entry.type
                return name.withUTF8 { equalSpan(field.name, $0) } && type.withUTF8 { equalSpan(field.typeName, $0) }
            }
            guard canonical else {
                throw EIP712Error(
                    .nonStandardDomainField(text(field.name)), at: [.key("types"), .key(EIP712Schema.domainTypeName), .index(i)])
            }
        }
    }
}

/// `encodeType` and `typeHash`.
enum TypeHasher {
    static func structIndex(_ encoding: Encoding, arrays: [ArraySpec]) -> Int? {
        switch encoding {
        case .structure(let index): index
        case .array(let index): structIndex(arrays[index].element, arrays: arrays)
        default: nil
        }
    }

    /// Buffers reused across the structs of one schema (no allocation per struct).
    struct Scratch {
        var seen: [Bool] = []
        var stack: [Int] = []
        var order: [Int] = []
        var text: [UInt8] = []

        init(structCount: Int) {
            seen = [Bool](repeating: false, count: structCount)
            stack.reserveCapacity(structCount)
            order.reserveCapacity(structCount)
            text.reserveCapacity(256)
        }
    }

    /// Feeds the `encodeType` bytes of struct `index` to `sink`.
    static func encodeType(
        _ index: Int, structs: [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec], arrays: [ArraySpec],
        arena: [UInt8], _ sink: (UnsafeRawBufferPointer) -> Void
    ) {
        var scratch = Scratch(structCount: structs.count)
        encodeType(index, structs: structs, fields: fields, arrays: arrays, arena: arena, scratch: &scratch, sink)
    }

    /// Feeds the `encodeType` bytes of struct `index` to `sink`, using `scratch` for its buffers.
    static func encodeType(
        _ index: Int, structs: [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec], arrays: [ArraySpec],
        arena: [UInt8], scratch: inout Scratch, _ sink: (UnsafeRawBufferPointer) -> Void
    ) {
        for i in scratch.seen.indices { scratch.seen[i] = false }
        scratch.stack.removeAll(keepingCapacity: true)
        scratch.order.removeAll(keepingCapacity: true)
        scratch.text.removeAll(keepingCapacity: true)
        scratch.seen[index] = true
        scratch.stack.append(index)
        scratch.order.append(index)
        while let next = scratch.stack.popLast() {
            for field in fields[structs[next].fields] {
                if let referenced = structIndex(field.encoding, arrays: arrays), !scratch.seen[referenced] {
                    scratch.seen[referenced] = true
                    scratch.stack.append(referenced)
                    scratch.order.append(referenced)
                }
            }
        }
        arena.withUnsafeBytes { bytes in
            func slice(_ span: EIP712Schema.Span) -> UnsafeRawBufferPointer {
                UnsafeRawBufferPointer(rebasing: bytes[Int(span.start)..<Int(span.end)])
            }
            if scratch.order.count > 2 {
                scratch.order[1...].sort { slice(structs[$0].name).lexicographicallyPrecedes(slice(structs[$1].name)) }
            }
            for structIndex in scratch.order {
                scratch.text.append(contentsOf: slice(structs[structIndex].name))
                scratch.text.append(UInt8(ascii: "("))
                for (i, field) in fields[structs[structIndex].fields].enumerated() {
                    if i > 0 { scratch.text.append(UInt8(ascii: ",")) }
                    scratch.text.append(contentsOf: slice(field.typeName))
                    scratch.text.append(UInt8(ascii: " "))
                    scratch.text.append(contentsOf: slice(field.name))
                }
                scratch.text.append(UInt8(ascii: ")"))
            }
        }
        scratch.text.withUnsafeBytes(sink)
    }

    /// Computes the type hash of every struct reachable from `roots`.
    static func hashReachable(
        from roots: [Int], structs: inout [EIP712Schema.StructSpec], fields: [EIP712Schema.FieldSpec],
        arrays: [ArraySpec], arena: [UInt8]
    ) {
        var scratch = Scratch(structCount: structs.count)
        var reached = [Bool](repeating: false, count: structs.count)
        var pending = roots
        for root in roots { reached[root] = true }
        while let next = pending.popLast() {
            var hasher = Keccak256.Hasher()
            encodeType(next, structs: structs, fields: fields, arrays: arrays, arena: arena, scratch: &scratch) {
                hasher.update($0)
            }
            structs[next].typeHash = hasher.finalize()
            // Every struct in this one's encodeType is reachable too.
            for referenced in scratch.order where !reached[referenced] {
                reached[referenced] = true
                pending.append(referenced)
            }
        }
    }
}
