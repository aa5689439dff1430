/// A resolved EIP-712 member type.
public indirect enum FieldType: Sendable, Equatable {
    /// `uintN`, N in 8...256 step 8.
    case uint(bits: Int)
    /// `intN`, N in 8...256 step 8.
    case int(bits: Int)
    /// `bool`.
    case bool
    /// `address`.
    case address
    /// `bytesN`, N in 1...32.
    case fixedBytes(Int)
    /// `bytes`.
    case bytes
    /// `string`.
    case string
    /// A struct defined in `types`, by index into the schema's struct table.
    case structure(Int)
    /// `T[]` (length `nil`) or `T[n]`.
    case array(FieldType, length: Int?)

}

/// The hot-path form of a member type: a trivial value (no reference counting); arrays refer to the
/// schema's array table by index.
enum Encoding: Sendable, Equatable {
    case uint(bits: Int)
    case int(bits: Int)
    case bool
    case address
    case fixedBytes(Int)
    case bytes
    case string
    case structure(Int)
    /// Index into ``EIP712Schema/arrays``.
    case array(Int)
}

/// One array type: element encoding and fixed length (nil for `T[]`).
struct ArraySpec: Sendable {
    var element: Encoding
    var length: Int?
}

/// Parsing of type strings from UTF-8 bytes.
enum TypeGrammar {
    /// Result of splitting `Base[2][]`: the base bytes and dimensions innermost first.
    struct Split {
        var base: UnsafeBufferPointer<UInt8>
        var dimensions: [Int?]
    }

    static func split(_ text: UnsafeBufferPointer<UInt8>) -> Split? {
        var end = text.count
        var dims: [Int?] = []
        while end > 0 && text[end - 1] == UInt8(ascii: "]") {
            var open = end - 2
            while open >= 0 && text[open] != UInt8(ascii: "[") { open -= 1 }
            guard open >= 0 else { return nil }
            if open + 1 == end - 1 {
                dims.append(nil)
            } else {
                guard text[open + 1] != UInt8(ascii: "0"), let n = decimal(text, open + 1, end - 1), n > 0 else {
                    return nil
                }
                dims.append(n)
            }
            end = open
        }
        guard end > 0 else { return nil }
        return Split(base: UnsafeBufferPointer(rebasing: text[0..<end]), dimensions: dims.reversed())
    }

    /// Decimal digits in `text[from..<to]` (at most 6), or nil.
    static func decimal(_ text: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int? {
        guard to > from, to - from <= 6 else { return nil }
        var n = 0
        for i in from..<to {
            let d = text[i] &- 0x30
            guard d < 10 else { return nil }
            n = n * 10 + Int(d)
        }
        return n
    }

    static func hasPrefix(_ text: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard text.count >= count else { return false }
        for i in 0..<count where text[i] != prefix.utf8Start[i] { return false }
        return true
    }

    static func equals(_ text: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        text.count == literal.utf8CodeUnitCount && hasPrefix(text, literal)
    }

    /// An atomic or dynamic (non-struct, non-array) type, or nil.
    static func elementary(_ name: UnsafeBufferPointer<UInt8>) -> Encoding? {
        guard let first = name.first else { return nil }
        switch first {
        case UInt8(ascii: "u"):
            if hasPrefix(name, "uint"), let bits = width(name, from: 4) { return .uint(bits: bits) }
        case UInt8(ascii: "i"):
            if hasPrefix(name, "int"), let bits = width(name, from: 3) { return .int(bits: bits) }
        case UInt8(ascii: "a"):
            if equals(name, "address") { return .address }
        case UInt8(ascii: "s"):
            if equals(name, "string") { return .string }
        case UInt8(ascii: "b"):
            if equals(name, "bool") { return .bool }
            guard hasPrefix(name, "bytes") else { return nil }
            if name.count == 5 { return .bytes }
            if name[5] != UInt8(ascii: "0"), let n = decimal(name, 5, name.count), (1...32).contains(n) {
                return .fixedBytes(n)
            }
        default: break
        }
        return nil
    }

    private static func width(_ name: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard name.count > from, name[from] != UInt8(ascii: "0"), let bits = decimal(name, from, name.count),
            bits % 8 == 0, (8...256).contains(bits)
        else { return nil }
        return bits
    }

    /// True for names shaped like elementary types (`uint7`, `bytes33`, `int`): never valid struct names.
    static func looksElementary(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        for prefix: StaticString in ["uint", "int", "bytes"] where hasPrefix(name, prefix) {
            if (prefix.utf8CodeUnitCount..<name.count).allSatisfy({ name[$0] &- 0x30 < 10 }) { return true }
        }
        return false
    }

    /// `[A-Za-z_$][A-Za-z0-9_$]*`.
    static func isIdentifier(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = name.first, isIdentifierStart(first) else { return false }
        return name.allSatisfy { isIdentifierStart($0) || $0 &- 0x30 < 10 }
    }

    private static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c | 0x20) &- 0x61 < 26 || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
    }
}
