import EIP712

/// How one EIP-712 member type is held in Swift and written into an ``EIP712WordHasher``.
///
/// `uintN`/`intN` up to 64 bits take the narrowest Swift integer that holds them (`uint24` → `UInt32`), wider
/// ones `UInt256` / `SignedMagnitude`; `bytes32` is `Bytes32`, other `bytesN` and `bytes` are `[UInt8]`; arrays
/// (dynamic or fixed) are Swift arrays. Widths a Swift type does not pin down are checked when hashing: a value
/// that does not fit is an `EIP712Error` naming the member.
struct SwiftFieldType {
    /// Names of the schema's structs by index (their Swift spelling).
    let structNames: [String]

    /// The Swift type of a member.
    func typeText(_ type: FieldType) -> String {
        switch type {
        case .uint(let bits): bits > 64 ? "EthereumPrimitives.UInt256" : "Swift.UInt\(Self.swiftWidth(bits))"
        case .int(let bits): bits > 64 ? "EthereumPrimitives.SignedMagnitude" : "Swift.Int\(Self.swiftWidth(bits))"
        case .bool: "Swift.Bool"
        case .address: "EthereumPrimitives.Address"
        case .fixedBytes(let length): length == 32 ? "EthereumPrimitives.Bytes32" : "[Swift.UInt8]"
        case .bytes: "[Swift.UInt8]"
        case .string: "Swift.String"
        case .structure(let index): structNames[index]
        case .array(let element, _): "[\(typeText(element))]"
        }
    }

    /// The statement writing `value` of `type` into the hasher `hasher`, with `try` where the write checks the
    /// value (member `field`, named in the error; `nil` inside arrays); `depth` numbers the closure parameters of
    /// nested arrays.
    func writeStatement(_ type: FieldType, value: String, hasher: String, field: String?, depth: Int = 0) -> String {
        let at = field.map { "field: \"\(SourceEmitter.literalBody($0))\"" } ?? "field: nil"
        switch type {
        case .uint(let bits):
            return bits == 256 ? "\(hasher).write(\(value))" : "try \(hasher).write(\(value), bits: \(bits), \(at))"
        case .int(let bits): return "try \(hasher).write(\(value), bits: \(bits), \(at))"
        case .bool, .address: return "\(hasher).write(\(value))"
        case .structure: return "try \(hasher).write(\(value), \(at))"
        case .fixedBytes(let length):
            return length == 32
                ? "\(hasher).write(\(value))" : "try \(hasher).write(fixedBytes: \(value), length: \(length), \(at))"
        case .bytes: return "\(hasher).write(bytes: \(value))"
        case .string: return "\(hasher).write(string: \(value))"
        case .array(let element, let length):
            let lengthArgument = length.map { ", length: \($0)" } ?? ""
            if case .structure = element { return "try \(hasher).write(\(value)\(lengthArgument), \(at))" }
            let innerHasher = "words\(depth + 1)"
            let item = "element\(depth + 1)"
            let inner = writeStatement(element, value: item, hasher: innerHasher, field: nil, depth: depth + 1)
            return
                "try \(hasher).write(\(value)\(lengthArgument), \(at)) { (\(innerHasher), \(item)) throws(EIP712.EIP712Error) in \(inner) }"
        }
    }

    /// 8, 16, 32 or 64: the narrowest Swift integer width of at least `bits`.
    static func swiftWidth(_ bits: Int) -> Int { [8, 16, 32, 64].first { $0 >= bits } ?? 64 }
}
