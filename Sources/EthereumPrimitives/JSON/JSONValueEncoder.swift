/// Encodes `Encodable` values as a ``JSONValue``, so typed-data messages and RPC params can be built
/// from Swift structs:
///
///     struct Mail: Encodable { let from: Address; let amount: UInt256; let note: String }
///     let message = try JSONValueEncoder().encode(Mail(from: alice, amount: 1_000, note: "hi"))
///     let digest = try compiled.digest(message: message)
///
/// - Integers become numbers with their exact decimal text; `Double` and `Float` become numbers in their
///   shortest round-tripping text (a non-finite one is an `EncodingError.invalidValue`).
/// - `UInt256` encodes as its decimal string, `Address` as its EIP-55 string, `Bytes32` as `0x`-hex:
///   their own `Encodable` conformances, which EIP-712 reads for `uint256`, `address` and `bytes32`.
/// - Object members keep the order the value encodes them in (declaration order for synthesized
///   conformances); encoding a key again replaces its value. `nil` optionals are left out by synthesized
///   conformances (`encodeIfPresent`); `encodeNil` writes `null`.
/// - Other types encode through their own conformances (Foundation's `Data` as an array of byte numbers,
///   `Date` as a number of seconds): give a typed-data `bytes` member a hex `String` instead.
public struct JSONValueEncoder: Sendable {
    /// Builds an encoder.
    public init() {}

    /// The value as JSON; rethrows what `value`'s `encode(to:)` throws.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let root = EncodingSlot()
        try value.encode(to: ValueEncoder(slot: root, codingPath: []))
        return root.value
    }
}

// MARK: - Storage

/// Where one value goes: filled by a single-value container, or grown by a keyed or unkeyed container.
/// A reference so that nested containers write into their parent after it handed them out.
private final class EncodingSlot {
    enum Content {
        case empty
        case value(JSONValue)
        case object(keys: [String], slots: [String: EncodingSlot])
        case array([EncodingSlot])
    }

    var content: Content = .empty

    /// The finished value; an untouched slot (a type that encoded nothing) is an empty object, as in
    /// Foundation's `JSONEncoder`.
    var value: JSONValue {
        switch content {
        case .empty: return .object(JSONObject())
        case .value(let value): return value
        case .object(let keys, let slots):
            return .object(
                JSONObject(members: keys.compactMap { key in slots[key].map { .init(key: key, value: $0.value) } }))
        case .array(let slots): return .array(slots.map(\.value))
        }
    }

    /// The child slot for `key`, replacing any earlier value (turns this slot into an object).
    func child(forKey key: String) -> EncodingSlot {
        var (keys, slots) = objectParts
        content = .empty  // so the arrays below are uniquely referenced and grow in place
        let slot = EncodingSlot()
        if slots.updateValue(slot, forKey: key) == nil { keys.append(key) }
        content = .object(keys: keys, slots: slots)
        return slot
    }

    /// A new last element (turns this slot into an array).
    func appendChild() -> EncodingSlot {
        var slots: [EncodingSlot]
        if case .array(let existing) = content { slots = existing } else { slots = [] }
        content = .empty  // so `slots` is uniquely referenced and grows in place
        let slot = EncodingSlot()
        slots.append(slot)
        content = .array(slots)
        return slot
    }

    /// Makes this slot an object (keeping members already encoded into it).
    func becomeObject() {
        let (keys, slots) = objectParts
        content = .object(keys: keys, slots: slots)
    }

    /// Makes this slot an array (keeping elements already encoded into it).
    func becomeArray() {
        if case .array = content { return }
        content = .array([])
    }

    var count: Int {
        if case .array(let slots) = content { return slots.count }
        return 0
    }

    private var objectParts: ([String], [String: EncodingSlot]) {
        if case .object(let keys, let slots) = content { return (keys, slots) }
        return ([], [:])
    }
}

// MARK: - Encoder

private struct ValueEncoder: Encoder {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.becomeArray()
        return UnkeyedContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(slot: slot, codingPath: codingPath)
    }
}

/// JSON values of primitives, and the step into a value that encodes itself.
private enum Primitive {
    static func number(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }

    static func number(_ value: some BinaryFloatingPoint & LosslessStringConvertible, codingPath: [any CodingKey])
        throws -> JSONValue
    {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: codingPath, debugDescription: "JSON has no \(value) (not finite)"))
        }
        return .number(value.description)
    }

    /// Encodes `value` into `slot` under `codingPath`.
    static func encode(_ value: some Encodable, into slot: EncodingSlot, codingPath: [any CodingKey]) throws {
        try value.encode(to: ValueEncoder(slot: slot, codingPath: codingPath))
    }
}

/// A coding key for array positions and `super`.
private struct PositionKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue) { slot.content = .value(value) }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(try Primitive.number(value, codingPath: codingPath)) }
    mutating func encode(_ value: Float) throws { set(try Primitive.number(value, codingPath: codingPath)) }
    mutating func encode(_ value: Int) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: Int8) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: Int16) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: Int32) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: Int64) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: UInt) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: UInt8) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: UInt16) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: UInt32) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: UInt64) throws { set(Primitive.number(value)) }
    mutating func encode(_ value: some Encodable) throws {
        try Primitive.encode(value, into: slot, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue, for key: Key) { slot.child(forKey: key.stringValue).content = .value(value) }
    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    mutating func encodeNil(forKey key: Key) throws { set(.null, for: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), for: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), for: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(try Primitive.number(value, codingPath: path(key)), for: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try Primitive.number(value, codingPath: path(key)), for: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(Primitive.number(value), for: key) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try Primitive.encode(value, into: slot.child(forKey: key.stringValue), codingPath: path(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = slot.child(forKey: key.stringValue)
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(slot: child, codingPath: path(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = slot.child(forKey: key.stringValue)
        child.becomeArray()
        return UnkeyedContainer(slot: child, codingPath: path(key))
    }

    mutating func superEncoder() -> any Encoder {
        let key = PositionKey(stringValue: "super")
        return ValueEncoder(slot: slot.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(slot: slot.child(forKey: key.stringValue), codingPath: path(key))
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    var count: Int { slot.count }

    private func append(_ value: JSONValue) { slot.appendChild().content = .value(value) }
    private var nextPath: [any CodingKey] { codingPath + [PositionKey(intValue: count)] }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try Primitive.number(value, codingPath: nextPath)) }
    mutating func encode(_ value: Float) throws { append(try Primitive.number(value, codingPath: nextPath)) }
    mutating func encode(_ value: Int) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: Int8) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: Int16) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: Int32) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: Int64) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: UInt) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: UInt8) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: UInt16) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: UInt32) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: UInt64) throws { append(Primitive.number(value)) }
    mutating func encode(_ value: some Encodable) throws {
        let path = nextPath
        try Primitive.encode(value, into: slot.appendChild(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let path = nextPath
        let child = slot.appendChild()
        child.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(slot: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = slot.appendChild()
        child.becomeArray()
        return UnkeyedContainer(slot: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return ValueEncoder(slot: slot.appendChild(), codingPath: path)
    }
}
