import EthereumPrimitives

/// `hashStruct` of a Swift `Encodable` value as a struct of a compiled schema, computed as the value encodes:
/// each member becomes its 32-byte ABI word when it is encoded, with no JSON on the way.
///
/// It reads a value exactly as the JSON path reads `JSONValueEncoder`'s form of it (same strictness, same
/// errors with the same paths): `Address`, `UInt256`, `Bytes32`, `Bool`, `String` and Swift integers that fit
/// their member's type take a direct route; any other scalar is handed to ``ScalarWord`` as the JSON text
/// `JSONValueEncoder` would write. Members may be encoded in any order (they are hashed in the schema's);
/// encoding a key again replaces its value, as in `JSONValueEncoder`.
final class EncodableHasher {
    let schema: EIP712Schema
    /// The schema's fields and its arena's bytes (their names), held apart so that looking up a member's key
    /// touches no reference count. The arena lives as long as `schema`.
    private let fields: [EIP712Schema.FieldSpec]
    private let names: UnsafeBufferPointer<UInt8>

    init(schema: EIP712Schema) {
        self.schema = schema
        fields = schema.fields
        names = schema.arena.bytes
    }

    /// `hashStruct` of `value` as struct number `index`.
    func hashStruct(_ value: some Encodable, index: Int) throws -> Bytes32 {
        try withExtendedLifetime(schema.arena) { try word(of: value, as: .structure(index), codingPath: []) }
    }

    /// The word of `value` as a member of type `encoding`.
    func word(of value: some Encodable, as encoding: Encoding, codingPath: @autoclosure () -> [any CodingKey])
        throws -> Bytes32
    {
        if let word = try knownWord(value, as: encoding) { return word }
        let slot = EncodableHashingSlot(encoding: encoding, hasher: self)
        try value.encode(to: EncodableHashingEncoder(slot: slot, codingPath: codingPath()))
        return try slot.finish()
    }

    /// The word of an `Address`, `UInt256` or `Bytes32` (nil for other types): direct when the type is the
    /// member's own, else through the text its `Encodable` conformance writes. A metatype comparison, then a
    /// reinterpretation of the value as the type it was found to be: no dynamic cast.
    @inline(__always) func knownWord<Value: Encodable>(_ value: Value, as encoding: Encoding) throws(EIP712Error)
        -> Bytes32?
    {
        if Value.self == Address.self {
            let address = unsafeBitCast(value, to: Address.self)
            if encoding == .address { return address.word }
            return try textWord(address.checksummed, kind: .string, as: encoding)
        }
        if Value.self == UInt256.self {
            let number = unsafeBitCast(value, to: UInt256.self)
            if case .uint(let bits) = encoding, bits >= 256 || number.bitWidth <= bits { return number.word }
            return try textWord(number.decimalString, kind: .string, as: encoding)
        }
        if Value.self == Bytes32.self {
            let bytes = unsafeBitCast(value, to: Bytes32.self)
            if encoding == .fixedBytes(32) { return bytes }
            return try textWord(bytes.hex, kind: .string, as: encoding)
        }
        return nil
    }

    /// The word of an unsigned Swift integer: direct when it fits a `uintN`/`intN` member, else as its number
    /// text (which names the type it does not fit).
    @inline(__always) func word<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value, as encoding: Encoding)
        throws(EIP712Error) -> Bytes32
    {
        let width = Value.bitWidth - value.leadingZeroBitCount
        switch encoding {
        case .uint(let bits) where width <= bits, .int(let bits) where width < bits:
            return UInt256(UInt64(value)).word
        default:
            return try textWord(String(value), kind: .number, as: encoding)
        }
    }

    /// The word of a signed Swift integer: direct when it fits an `intN` member (or, not negative, a
    /// `uintN`), else as its number text.
    @inline(__always) func word<Value: FixedWidthInteger & SignedInteger>(_ value: Value, as encoding: Encoding)
        throws(EIP712Error) -> Bytes32
    {
        let wide = Int64(value)
        switch encoding {
        case .int(let bits) where bits >= 64 || (wide >= -(Int64(1) << (bits - 1)) && wide < Int64(1) << (bits - 1)):
            return ABIWord.signed(wide)
        case .uint(let bits) where wide >= 0 && 64 - wide.leadingZeroBitCount <= bits:
            return UInt256(UInt64(wide)).word
        default:
            return try textWord(String(value), kind: .number, as: encoding)
        }
    }

    /// The word of a `Bool`.
    @inline(__always) func word(_ flag: Bool, as encoding: Encoding) throws(EIP712Error) -> Bytes32 {
        try ScalarWord.word(
            encoding, ScalarWord.Input(kind: .bool, text: UnsafeBufferPointer(start: nil, count: 0), flag: flag))
    }

    /// The word of a `String`: direct for a `string` member, else read as the JSON string it encodes as.
    @inline(__always) func word(_ string: String, as encoding: Encoding) throws(EIP712Error) -> Bytes32 {
        if encoding == .string { return Keccak256.hash(utf8: string) }
        return try textWord(string, kind: .string, as: encoding)
    }

    /// The word of a floating-point number, read as the number text `JSONValueEncoder` writes for it.
    func word(
        _ value: some BinaryFloatingPoint & LosslessStringConvertible, as encoding: Encoding,
        codingPath: [any CodingKey]
    )
        throws -> Bytes32
    {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: codingPath, debugDescription: "JSON has no \(value) (not finite)"))
        }
        return try textWord(value.description, kind: .number, as: encoding)
    }

    /// `null` (`encodeNil`), read as JSON `null`.
    func nullWord(as encoding: Encoding) throws(EIP712Error) -> Bytes32 {
        try ScalarWord.word(
            encoding, ScalarWord.Input(kind: .null, text: UnsafeBufferPointer(start: nil, count: 0), flag: false))
    }

    /// The word of a JSON scalar of `kind` with `text`, as the JSON path reads it.
    func textWord(_ text: String, kind: JSONKind, as encoding: Encoding) throws(EIP712Error) -> Bytes32 {
        var text = text
        let result: Result<Bytes32, EIP712Error> = text.withUTF8 { utf8 in
            do throws(EIP712Error) {
                return .success(try ScalarWord.word(encoding, ScalarWord.Input(kind: kind, text: utf8, flag: false)))
            } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The position of the field named `key` among the `count` fields of a struct whose first field is `first`,
    /// looked up first at `expected` (where members encoded in schema order are found); nil when there is none.
    func fieldPosition(of key: String, first: Int, count: Int, expected: Int) -> Int? {
        var key = key
        return key.withUTF8 { utf8 in
            if expected < count && SchemaArena.equal(name(first + expected), utf8) { return expected }
            for position in 0..<count where SchemaArena.equal(name(first + position), utf8) { return position }
            return nil
        }
    }

    @inline(__always) private func name(_ field: Int) -> UnsafeBufferPointer<UInt8> {
        let span = fields[field].name
        return UnsafeBufferPointer(rebasing: names[Int(span.start)..<Int(span.end)])
    }

    /// The name of field `position` of struct `index`.
    func fieldName(_ position: Int, inStruct index: Int) -> String {
        schema.text(schema.fields[schema.structs[index].fields.lowerBound + position].name)
    }

    /// The type of field number `field` of the schema's field table.
    func fieldEncoding(at field: Int) -> Encoding { fields[field].encoding }
}
