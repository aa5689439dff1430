import EthereumPrimitives

/// The `Encoder` an ``EncodableHasher`` hands a value: its containers turn members and elements into words.
struct EncodableHashingEncoder: Encoder {
    let slot: EncodableHashingSlot
    let codingPath: [any CodingKey]
    private var hasher: EncodableHasher { slot.hasher }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.become(.object)
        return KeyedEncodingContainer(EncodableHashingKeyedContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.become(.array)
        return EncodableHashingUnkeyedContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        EncodableHashingSingleValueContainer(slot: slot, codingPath: codingPath)
    }
}

private struct EncodableHashingSingleValueContainer: SingleValueEncodingContainer {
    let slot: EncodableHashingSlot
    let codingPath: [any CodingKey]
    private var hasher: EncodableHasher { slot.hasher }

    private var encoding: Encoding { slot.encoding }

    mutating func encodeNil() throws { slot.setScalar(try hasher.nullWord(as: encoding)) }
    mutating func encode(_ value: Bool) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: String) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: Double) throws {
        slot.setScalar(try hasher.word(value, as: encoding, codingPath: codingPath))
    }
    mutating func encode(_ value: Float) throws {
        slot.setScalar(try hasher.word(value, as: encoding, codingPath: codingPath))
    }
    mutating func encode(_ value: Int) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: Int8) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: Int16) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: Int32) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: Int64) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: UInt) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: UInt8) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: UInt16) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: UInt32) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: UInt64) throws { slot.setScalar(try hasher.word(value, as: encoding)) }
    mutating func encode(_ value: some Encodable) throws {
        if let word = try hasher.knownWord(value, as: encoding) { return slot.setScalar(word) }
        // A value that encodes itself (a wrapper): into this same slot.
        try value.encode(to: EncodableHashingEncoder(slot: slot, codingPath: codingPath))
    }
}

private struct EncodableHashingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: EncodableHashingSlot
    let codingPath: [any CodingKey]
    private var hasher: EncodableHasher { slot.hasher }

    /// The field `key` names, and its type; an undeclared member is an error at its key. A value that is no
    /// struct fails with its kind error first, as the JSON path reports it.
    private func field(_ key: Key) throws(EIP712Error) -> (position: Int, encoding: Encoding) {
        if let error = slot.deferredError { throw error }
        guard let field = slot.field(key.stringValue) else {
            throw EIP712Error(.unexpectedField, at: [.key(key.stringValue)])
        }
        return field
    }

    /// Sets the member `key` to the word `word` computes, naming `key` in its errors.
    private func set(_ key: Key, _ word: (Encoding) throws -> Bytes32) throws {
        let (position, encoding) = try field(key)
        do { slot.setMember(position, .word(try word(encoding))) } catch let error as EIP712Error {
            throw error.under(.key(key.stringValue))
        }
    }

    mutating func encodeNil(forKey key: Key) throws { try set(key) { try hasher.nullWord(as: $0) } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: String, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try set(key) { try hasher.word(value, as: $0, codingPath: codingPath + [key]) }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try set(key) { try hasher.word(value, as: $0, codingPath: codingPath + [key]) }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try set(key) { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        let (position, encoding) = try field(key)
        do {
            // `Address`, `UInt256` and `Bytes32` without a closure or a coding path: most members of most structs.
            if let word = try hasher.knownWord(value, as: encoding) { return slot.setMember(position, .word(word)) }
            slot.setMember(position, .word(try hasher.word(of: value, as: encoding, codingPath: codingPath + [key])))
        } catch let error as EIP712Error {
            throw error.under(.key(key.stringValue))
        }
    }

    /// A slot for member `key` that a nested container or encoder fills after this call returns; finished
    /// with its parent. An undeclared `key` is kept as the parent's error.
    private func nestedSlot(_ key: String) -> EncodableHashingSlot {
        guard let (position, encoding) = slot.field(key) else {
            slot.keep(EIP712Error(.unexpectedField, at: [.key(key)]))
            return EncodableHashingSlot(encoding: .string, hasher: hasher)
        }
        let nested = EncodableHashingSlot(encoding: encoding, hasher: hasher)
        slot.setMember(position, .slot(nested))
        return nested
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        EncodableHashingEncoder(slot: nestedSlot(key.stringValue), codingPath: codingPath + [key])
            .container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        EncodableHashingEncoder(slot: nestedSlot(key.stringValue), codingPath: codingPath + [key])
            .unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        EncodableHashingEncoder(slot: nestedSlot("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        EncodableHashingEncoder(slot: nestedSlot(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct EncodableHashingUnkeyedContainer: UnkeyedEncodingContainer {
    let slot: EncodableHashingSlot
    let codingPath: [any CodingKey]
    private var hasher: EncodableHasher { slot.hasher }
    var count: Int { slot.count }

    /// The element type; a container that is not an array's has none (its kind error is deferred already).
    private var element: Encoding { slot.arraySpec?.element ?? .string }

    /// Appends the element `word` computes, naming its index in its errors.
    private func append(_ word: (Encoding) throws -> Bytes32) throws {
        // A value that is no array fails with its kind error first, as the JSON path reports it.
        if let error = slot.deferredError { throw error }
        let position = slot.count
        do { slot.appendElement(.word(try word(element))) } catch let error as EIP712Error {
            throw error.under(.index(position))
        }
    }

    private var nextPath: [any CodingKey] { codingPath + [PositionKey(intValue: slot.count)] }

    mutating func encodeNil() throws { try append { try hasher.nullWord(as: $0) } }
    mutating func encode(_ value: Bool) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: String) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Double) throws {
        let path = nextPath
        try append { try hasher.word(value, as: $0, codingPath: path) }
    }
    mutating func encode(_ value: Float) throws {
        let path = nextPath
        try append { try hasher.word(value, as: $0, codingPath: path) }
    }
    mutating func encode(_ value: Int) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Int8) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Int16) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Int32) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: Int64) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt8) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt16) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt32) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: UInt64) throws { try append { try hasher.word(value, as: $0) } }
    mutating func encode(_ value: some Encodable) throws {
        let (path, position) = (codingPath, slot.count)
        try append { try hasher.word(of: value, as: $0, codingPath: path + [PositionKey(intValue: position)]) }
    }

    private func nestedSlot() -> EncodableHashingSlot {
        let nested = EncodableHashingSlot(encoding: element, hasher: hasher)
        slot.appendElement(.slot(nested))
        return nested
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let path = nextPath
        return EncodableHashingEncoder(slot: nestedSlot(), codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        return EncodableHashingEncoder(slot: nestedSlot(), codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return EncodableHashingEncoder(slot: nestedSlot(), codingPath: path)
    }
}
