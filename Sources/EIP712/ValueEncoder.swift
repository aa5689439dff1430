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
        case .uint(let bits):
            let text = try integerText(value)
            do throws(IntegerTextError) {
                return try SignedMagnitude(utf8: text).uintWord(bits: bits, text: String(decoding: text, as: UTF8.self))
            } catch { throw EIP712Error(.integer(Self.relabel(error, type: "uint\(bits)"))) }
        case .int(let bits):
            let text = try integerText(value)
            do throws(IntegerTextError) {
                return try SignedMagnitude(utf8: text).intWord(bits: bits, text: String(decoding: text, as: UTF8.self))
            } catch { throw EIP712Error(.integer(Self.relabel(error, type: "int\(bits)"))) }
        case .bool:
            guard let flag = document.bool(at: value) else { throw kindError("boolean", value) }
            return ABIWord.bool(flag)
        case .address:
            let text = try string(value, "address string")
            do throws(AddressError) { return try Address(utf8: text).word } catch { throw EIP712Error(.address(error)) }
        case .fixedBytes(let n):
            let bytes = try hexBytes(value)
            guard bytes.count == n else { throw EIP712Error(.bytesLength(expected: n, actual: bytes.count)) }
            return ABIWord.leftAligned(bytes)
        case .bytes:
            return Keccak256.hash(try hexBytes(value))
        case .string:
            return Keccak256.hash(UnsafeRawBufferPointer(try string(value, "string")))
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

    private static func relabel(_ error: IntegerTextError, type: String) -> IntegerTextError {
        if case .outOfRange(let text, _) = error { return .outOfRange(text, type: type) }
        return error
    }

    @inline(__always) private func integerText(_ value: Int) throws(EIP712Error) -> UnsafeBufferPointer<UInt8> {
        let kind = document.kind(at: value)
        guard kind == .number || kind == .string else { throw kindError("integer", value) }
        return document.unsafeUTF8(at: value)
    }

    @inline(__always) private func string(_ value: Int, _ expected: String) throws(EIP712Error) -> UnsafeBufferPointer<
        UInt8
    > {
        guard document.kind(at: value) == .string else { throw kindError(expected, value) }
        return document.unsafeUTF8(at: value)
    }

    private func hexBytes(_ value: Int) throws(EIP712Error) -> [UInt8] {
        let text = try string(value, "0x-hex string")
        do throws(HexError) { return try Hex.decode(utf8: text) } catch { throw EIP712Error(.hex(error)) }
    }
}
