import EIP712

/// How one EIP-712 member type is held in Swift and written into an ``EIP712WordHasher``.
///
/// `uintN`/`intN` up to 64 bits take the narrowest Swift integer that holds them (`uint24` → `UInt32`), wider
/// ones `UInt256` / `SignedMagnitude`; `bytes32` is `Bytes32`, other `bytesN` and `bytes` are `[UInt8]`; arrays
/// (dynamic or fixed) are Swift arrays. Widths a Swift type does not pin down are checked when hashing.
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

    /// The statement writing `value` of `type` into the hasher `hasher`; `depth` numbers the closure
    /// parameters of nested arrays.
    func writeStatement(_ type: FieldType, value: String, hasher: String, depth: Int = 0) -> String {
        switch type {
        case .uint(let bits): bits == 256 ? "\(hasher).write(\(value))" : "\(hasher).write(\(value), bits: \(bits))"
        case .int(let bits): "\(hasher).write(\(value), bits: \(bits))"
        case .bool, .address, .structure: "\(hasher).write(\(value))"
        case .fixedBytes(let length):
            length == 32 ? "\(hasher).write(\(value))" : "\(hasher).write(fixedBytes: \(value), length: \(length))"
        case .bytes: "\(hasher).write(bytes: \(value))"
        case .string: "\(hasher).write(string: \(value))"
        case .array(let element, let length):
            arrayStatement(element: element, length: length, value: value, hasher: hasher, depth: depth)
        }
    }

    private func arrayStatement(
        element: FieldType, length: Int?, value: String, hasher: String, depth: Int
    ) -> String {
        let lengthArgument = length.map { ", length: \($0)" } ?? ""
        if case .structure = element { return "\(hasher).write(\(value)\(lengthArgument))" }
        let innerHasher = "words\(depth + 1)"
        let item = "element\(depth + 1)"
        let inner = writeStatement(element, value: item, hasher: innerHasher, depth: depth + 1)
        return "\(hasher).write(\(value)\(lengthArgument)) { \(innerHasher), \(item) in \(inner) }"
    }

    /// 8, 16, 32 or 64: the narrowest Swift integer width of at least `bits`.
    static func swiftWidth(_ bits: Int) -> Int { [8, 16, 32, 64].first { $0 >= bits } ?? 64 }
}
