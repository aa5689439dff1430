import EthereumPrimitives

/// `encodeData` / `hashStruct` over JSON nodes. Strict: every declared member present, no undeclared
/// member, JSON kinds as the type requires, integers range-checked, addresses checksum-checked.
struct ValueEncoder {
    let schema: EIP712Schema
    /// The schema's arena (field names), for comparing keys without allocating.
    let names: UnsafeBufferPointer<UInt8>

    func hashStruct(_ index: Int, _ value: JSONNode) throws(EIP712Error) -> Bytes32 {
        guard value.kind == .object else { throw EIP712Error(.wrongKind(expected: "object", actual: value.kindName)) }
        let spec = schema.structs[index]
        var hasher = Keccak256.Hasher()
        hasher.update(schema.typeHash(index))
        var members = value.members.makeIterator()
        var pending = members.next()
        for fieldIndex in spec.fields {
            let field = schema.fields[fieldIndex]
            let name = UnsafeBufferPointer(rebasing: names[Int(field.name.start)..<Int(field.name.end)])
            let fieldValue: JSONNode
            if let (key, candidate) = pending, key.equals(utf8: name) {
                fieldValue = candidate
                pending = members.next()
            } else if let found = value.member(utf8: name) {
                fieldValue = found
            } else {
                throw EIP712Error(.missing, at: [.key(String(decoding: name, as: UTF8.self))])
            }
            do {
                hasher.update(try encode(field.encoding, fieldValue))
            } catch {
                throw error.under(.key(String(decoding: name, as: UTF8.self)))
            }
        }
        if value.count != spec.fields.count {
            for (key, _) in value.members {
                let declared = schema.fields[spec.fields].contains { field in
                    key.equals(utf8: UnsafeBufferPointer(rebasing: names[Int(field.name.start)..<Int(field.name.end)]))
                }
                if !declared { throw EIP712Error(.unexpectedField, at: [.key(key.stringValue ?? "")]) }
            }
        }
        return hasher.finalize()
    }

    func encode(_ encoding: Encoding, _ value: JSONNode) throws(EIP712Error) -> Bytes32 {
        switch encoding {
        case .uint(let bits):
            try requireInteger(value)
            return try value.withUTF8 { (text) throws(EIP712Error) in
                do throws(IntegerTextError) {
                    return try SignedMagnitude(utf8: text).uintWord(bits: bits, text: String(decoding: text, as: UTF8.self))
                } catch { throw EIP712Error(.integer(Self.relabel(error, type: "uint\(bits)"))) }
            }
        case .int(let bits):
            try requireInteger(value)
            return try value.withUTF8 { (text) throws(EIP712Error) in
                do throws(IntegerTextError) {
                    return try SignedMagnitude(utf8: text).intWord(bits: bits, text: String(decoding: text, as: UTF8.self))
                } catch { throw EIP712Error(.integer(Self.relabel(error, type: "int\(bits)"))) }
            }
        case .bool:
            guard let flag = value.boolValue else {
                throw EIP712Error(.wrongKind(expected: "boolean", actual: value.kindName))
            }
            var word = Bytes32.zero
            if flag { word[31] = 1 }
            return word
        case .address:
            try requireString(value, "address string")
            return try value.withUTF8 { (text) throws(EIP712Error) in
                do throws(AddressError) { return try Address(utf8: text).word } catch { throw EIP712Error(.address(error)) }
            }
        case .fixedBytes(let n):
            let bytes = try hexBytes(value)
            guard bytes.count == n else { throw EIP712Error(.bytesLength(expected: n, actual: bytes.count)) }
            var word = Bytes32.zero
            word.withUnsafeMutableBytes { out in
                for i in 0..<n { out[i] = bytes[i] }
            }
            return word
        case .bytes:
            return Keccak256.hash(try hexBytes(value))
        case .string:
            try requireString(value, "string")
            return value.withUTF8 { Keccak256.hash(UnsafeRawBufferPointer($0)) }
        case .structure(let index):
            return try hashStruct(index, value)
        case .array(let arrayIndex):
            let element = schema.arrays[arrayIndex].element
            let length = schema.arrays[arrayIndex].length
            guard value.kind == .array else { throw EIP712Error(.wrongKind(expected: "array", actual: value.kindName)) }
            if let length, value.count != length {
                throw EIP712Error(.arrayLength(expected: length, actual: value.count))
            }
            var hasher = Keccak256.Hasher()
            for (i, item) in value.elements.enumerated() {
                do {
                    hasher.update(try encode(element, item))
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

    @inline(__always) private func requireInteger(_ value: JSONNode) throws(EIP712Error) {
        guard value.kind == .number || value.kind == .string else {
            throw EIP712Error(.wrongKind(expected: "integer", actual: value.kindName))
        }
    }

    @inline(__always) private func requireString(_ value: JSONNode, _ expected: String) throws(EIP712Error) {
        guard value.kind == .string else { throw EIP712Error(.wrongKind(expected: expected, actual: value.kindName)) }
    }

    private func hexBytes(_ value: JSONNode) throws(EIP712Error) -> [UInt8] {
        try requireString(value, "0x-hex string")
        return try value.withUTF8 { (text) throws(EIP712Error) in
            do throws(HexError) { return try Hex.decode(utf8: text) } catch { throw EIP712Error(.hex(error)) }
        }
    }
}
