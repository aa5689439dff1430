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

    /// Parses an atomic or dynamic (non-struct, non-array) type name.
    static func elementary(_ name: Substring) -> FieldType? {
        switch name {
        case "bool": return .bool
        case "address": return .address
        case "bytes": return .bytes
        case "string": return .string
        default: break
        }
        if name.hasPrefix("uint"), let bits = widthSuffix(name.dropFirst(4)) { return .uint(bits: bits) }
        if name.hasPrefix("int"), let bits = widthSuffix(name.dropFirst(3)) { return .int(bits: bits) }
        if name.hasPrefix("bytes"), let n = Int(name.dropFirst(5)), (1...32).contains(n),
            !name.dropFirst(5).hasPrefix("0")
        {
            return .fixedBytes(n)
        }
        return nil
    }

    private static func widthSuffix(_ digits: Substring) -> Int? {
        guard let bits = Int(digits), !digits.hasPrefix("0"), !digits.hasPrefix("+"), bits % 8 == 0,
            (8...256).contains(bits)
        else { return nil }
        return bits
    }

    /// True for names that look elementary but are not valid (`uint7`, `bytes33`, `int`): never struct names.
    static func looksElementary(_ name: Substring) -> Bool {
        ["uint", "int", "bytes"].contains { name.hasPrefix($0) && name.dropFirst($0.count).allSatisfy(\.isNumber) }
    }
}

/// A type string split into its base name and array suffixes, innermost first.
struct TypeName {
    let base: Substring
    /// Array dimensions from the innermost (`Abc[2][]` → `[2, nil]`).
    let dimensions: [Int?]

    init?(_ text: String) {
        var rest = Substring(text)
        var dims: [Int?] = []
        while rest.hasSuffix("]") {
            guard let open = rest.lastIndex(of: "[") else { return nil }
            let inside = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
            if inside.isEmpty {
                dims.append(nil)
            } else {
                guard inside.allSatisfy({ $0.isASCII && $0.isNumber }), !inside.hasPrefix("0"), let n = Int(inside),
                    n > 0
                else { return nil }
                dims.append(n)
            }
            rest = rest[..<open]
        }
        guard !rest.isEmpty else { return nil }
        base = rest
        dimensions = dims.reversed()
    }
}

extension Character {
    var isIdentifierStart: Bool { isASCII && (isLetter || self == "_" || self == "$") }
    var isIdentifierPart: Bool { isASCII && (isLetter || isNumber || self == "_" || self == "$") }
}
