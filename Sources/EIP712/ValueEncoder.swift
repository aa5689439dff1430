import EthereumPrimitives

/// `encodeData` / `hashStruct` over one JSON document. Strict: every declared member present, no undeclared
/// member, JSON kinds as the type requires, integers range-checked, addresses checksum-checked.
///
/// Works on node indices of a document it holds, so the hot loop does no reference counting.
struct ValueEncoder {
    let schema: EIP712Schema
    /// The schema's arena (field names), for comparing keys without allocating.
    let names: UnsafeBufferPointer<UInt8>
    let document: JSONDocument

    @inline(__always) private func name(_ field: EIP712Schema.FieldSpec) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: names[Int(field.name.start)..<Int(field.name.end)])
    }

    private func kindError(_ expected: String, _ index: Int) -> EIP712Error {
        EIP712Error(.wrongKind(expected: expected, actual: JSONValue.kindName(of: document.kind(at: index))))
    }

    func hashStruct(_ structIndex: Int, _ value: Int) throws(EIP712Error) -> Bytes32 {
        guard document.kind(at: value) == .object else { throw kindError("object", value) }
        let spec = schema.structs[structIndex]
        var hasher = Keccak256.Hasher()
        hasher.update(schema.typeHash(structIndex))
        let memberCount = document.count(at: value)
        var cursor = value + 1  // key node of the next member in document order
        var consumed = 0
        /// Value nodes by key, built at the first out-of-order field of a large object.
        var membersByKey: [[UInt8]: Int]?
        for fieldIndex in spec.fields {
            let field = schema.fields[fieldIndex]
            let key = name(field)
            let fieldValue: Int
            if consumed < memberCount && document.string(at: cursor, equals: key) {
                fieldValue = cursor + 1
                cursor = document.next(after: cursor + 1)
                consumed += 1
            } else if let found = lookUp(key, in: value, memberCount: memberCount, table: &membersByKey) {
                fieldValue = found
            } else {
                throw EIP712Error(.missing, at: [.key(String(decoding: key, as: UTF8.self))])
            }
            do {
                hasher.update(try encode(field.encoding, fieldValue))
            } catch {
                throw error.under(.key(String(decoding: key, as: UTF8.self)))
            }
        }
        if memberCount != spec.fields.count {
            // Every field was found and keys are unique, so some member is undeclared: name the first.
            let declaredNames: Set<[UInt8]>? =
                spec.fields.count > Self.linearSearchLimit
                ? Set(schema.fields[spec.fields].map { Array(name($0)) }) : nil
            var keyIndex = value + 1
            for _ in 0..<memberCount {
                let declared =
                    declaredNames?.contains(Array(document.unsafeUTF8(at: keyIndex)))
                    ?? schema.fields[spec.fields].contains { document.string(at: keyIndex, equals: name($0)) }
                if !declared {
                    throw EIP712Error(
                        .unexpectedField, at: [.key(String(decoding: document.unsafeUTF8(at: keyIndex), as: UTF8.self))]
                    )
                }
                keyIndex = document.next(after: keyIndex + 1)
            }
        }
        return hasher.finalize()
    }

    /// Objects with up to this many members (or structs with this many fields) are searched one
    /// by one; larger ones through a hash table, so a hostile message costs O(n), not O(n²).
    static let linearSearchLimit = 16

    /// The value node of the member `key` of the object `object`: a linear search in small objects,
    /// else a table of all members built on first use.
    private func lookUp(
        _ key: UnsafeBufferPointer<UInt8>, in object: Int, memberCount: Int, table: inout [[UInt8]: Int]?
    ) -> Int? {
        guard memberCount > Self.linearSearchLimit else { return document.member(of: object, utf8: key) }
        if table == nil {
            var members: [[UInt8]: Int] = [:]
            members.reserveCapacity(memberCount)
            var keyIndex = object + 1
            for _ in 0..<memberCount {
                members[Array(document.unsafeUTF8(at: keyIndex))] = keyIndex + 1
                keyIndex = document.next(after: keyIndex + 1)
            }
            table = members
        }
        return table?[Array(key)]
    }

    func encode(_ encoding: Encoding, _ value: Int) throws(EIP712Error) -> Bytes32 {
        switch encoding {
        case .uint, .int, .bool, .address, .fixedBytes, .bytes, .string:
            let kind = document.kind(at: value)
            return try ScalarWord.word(
                encoding,
                ScalarWord.Input(
                    kind: kind, text: document.unsafeUTF8(at: value), flag: document.bool(at: value) ?? false))
        case .structure(let index):
            return try hashStruct(index, value)
        case .array(let arrayIndex):
            let spec = schema.arrays[arrayIndex]
            guard document.kind(at: value) == .array else { throw kindError("array", value) }
            let count = document.count(at: value)
            if let length = spec.length, count != length {
                throw EIP712Error(.arrayLength(expected: length, actual: count))
            }
            var hasher = Keccak256.Hasher()
            var item = value + 1
            for i in 0..<count {
                do {
                    hasher.update(try encode(spec.element, item))
                } catch {
                    throw error.under(.index(i))
                }
                item = document.next(after: item)
            }
            return hasher.finalize()
        }
    }
}
