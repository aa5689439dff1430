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

/// Where one value goes: set by a single-value container, or grown by a keyed or unkeyed container.
/// A reference so that nested containers write into their parent after it handed them out; scalars of an
/// object or array are kept inline in it (no slot of their own), so a flat struct costs one slot.
private final class EncodingSlot {
    /// A member or element: a finished value, or a slot that a nested container or value still writes.
    enum Child {
        case value(JSONValue)
        case slot(EncodingSlot)

        var value: JSONValue {
            switch self {
            case .value(let value): value
            case .slot(let slot): slot.value
            }
        }
    }

    enum Shape {
        case empty, value, object, array
    }

    private(set) var shape = Shape.empty
    private var scalar = JSONValue.null
    /// Object keys in first-encoded order.
    private var keys: [String] = []
    /// Object members (parallel to `keys`) or array elements.
    private var children: [Child] = []
    /// Positions of `keys`, once an object has more than ``linearSearchLimit`` members.
    private var positions: [String: Int]?

    /// Objects up to this size find a key again by comparing each; larger ones through `positions`.
    static let linearSearchLimit = 16

    /// The finished value; an untouched slot (a type that encoded nothing) is an empty object, as in
    /// Foundation's `JSONEncoder`.
    var value: JSONValue {
        switch shape {
        case .empty: return .object(JSONObject())
        case .value: return scalar
        case .object:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(keys.count)
            for (key, child) in zip(keys, children) { members.append(JSONObject.Member(key: key, value: child.value)) }
            return .object(JSONObject(members: members))
        case .array:
            return .array(children.map(\.value))
        }
    }

    /// Makes this slot the value `value` (whatever it held before).
    func set(_ value: JSONValue) {
        shape = .value
        scalar = value
        if !children.isEmpty { clearContainer() }
    }

    /// Sets the member `key` (turns this slot into an object); encoding a key again replaces its value
    /// and keeps its place.
    func set(_ child: Child, forKey key: String) {
        becomeObject()
        if let position = position(of: key) {
            children[position] = child
            return
        }
        keys.append(key)
        children.append(child)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else if keys.count > Self.linearSearchLimit {
            var table: [String: Int] = [:]
            for (position, key) in keys.enumerated() { table[key] = position }
            positions = table
        }
    }

    /// A new slot for the member `key`, replacing any earlier value.
    func child(forKey key: String) -> EncodingSlot {
        let slot = EncodingSlot()
        set(.slot(slot), forKey: key)
        return slot
    }

    /// Appends an element (turns this slot into an array).
    func append(_ child: Child) {
        becomeArray()
        children.append(child)
    }

    /// A new last element slot.
    func appendChild() -> EncodingSlot {
        let slot = EncodingSlot()
        append(.slot(slot))
        return slot
    }

    /// Makes this slot an object (keeping members already encoded into it).
    func becomeObject() {
        guard shape != .object else { return }
        clearContainer()
        shape = .object
    }

    /// Makes this slot an array (keeping elements already encoded into it).
    func becomeArray() {
        guard shape != .array else { return }
        clearContainer()
        shape = .array
    }

    var count: Int { shape == .array ? children.count : 0 }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }

    private func clearContainer() {
        keys = []
        children = []
        positions = nil
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

    /// The value of the package's own single-string types, as their `encode(to:)` writes it, without an
    /// encoder: `Address` (EIP-55), `UInt256` (decimal), `Bytes32` (hex). Nil for any other type.
    /// (A metatype comparison, then a reinterpretation of the value as the type it was found to be: no dynamic
    /// cast.)
    @inline(__always) static func known<Value: Encodable>(_ value: Value) -> JSONValue? {
        if Value.self == Address.self { return .string(unsafeBitCast(value, to: Address.self).checksummed) }
        if Value.self == UInt256.self { return .string(unsafeBitCast(value, to: UInt256.self).decimalString) }
        if Value.self == Bytes32.self { return .string(unsafeBitCast(value, to: Bytes32.self).hex) }
        return nil
    }

    /// What `value` encodes as: a known value inline, or a slot it encodes itself into under `codingPath()`.
    static func child(_ value: some Encodable, codingPath: () -> [any CodingKey]) throws -> EncodingSlot.Child {
        if let known = known(value) { return .value(known) }
        let slot = EncodingSlot()
        try value.encode(to: ValueEncoder(slot: slot, codingPath: codingPath()))
        return .slot(slot)
    }
}

/// A coding key for array positions and `super` (also the EIP-712 hashing encoder's).
package struct PositionKey: CodingKey {
    package let stringValue: String
    package let intValue: Int?

    package init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    package init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue) { slot.set(value) }

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
        if let known = Primitive.known(value) { return set(known) }
        try value.encode(to: ValueEncoder(slot: slot, codingPath: codingPath))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue, for key: Key) { slot.set(.value(value), forKey: key.stringValue) }
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
        // Set once the value has encoded itself; a value that throws fails the whole encode anyway.
        let path = codingPath
        slot.set(try Primitive.child(value) { path + [key] }, forKey: key.stringValue)
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

    private func append(_ value: JSONValue) { slot.append(.value(value)) }
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
        if let known = Primitive.known(value) { return append(known) }
        let path = nextPath
        let child = slot.appendChild()
        try value.encode(to: ValueEncoder(slot: child, codingPath: path))
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
