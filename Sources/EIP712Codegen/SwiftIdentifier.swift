/// EIP-712 names as Swift names: ASCII identifiers, keywords in backticks, names the generated code
/// needs for itself refused.
enum SwiftIdentifier {
    /// Swift keywords and contextual words that need backticks as a declared name.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "as", "false", "is", "nil", "super", "throws", "true", "try", "package", "any", "some",
        "await", "async", "consume", "copy", "discard", "borrowing", "consuming", "each", "macro",
    ]

    /// Names no generated declaration may take: the modules and types the generated code spells out, and
    /// names Swift reserves even in backticks.
    static let reservedTypeNames: Set<String> = [
        "Swift", "EIP712", "EthereumPrimitives", "Any", "Self", "Type", "Protocol", "AnyObject",
    ]

    /// Member names of ``EIP712Struct`` (and `self`), which a field would hide or clash with.
    static let reservedFieldNames: Set<String> = [
        "self", "Self", "Type", "Protocol", "init", "deinit", "subscript", "encodeData", "hashStruct", "digest",
        "hashes", "typeHash", "encodeType", "eip712TypeName",
    ]

    /// Why `name` cannot be a Swift identifier, or nil when it can.
    static func problem(with name: String) -> String? {
        guard let first = name.utf8.first else { return "it is empty" }
        guard first &- 0x30 >= 10 else { return "it starts with a digit" }
        let allowed = name.utf8.allSatisfy { c in
            (c | 0x20) &- 0x61 < 26 || c &- 0x30 < 10 || c == UInt8(ascii: "_")
        }
        guard allowed else { return "only ASCII letters, digits and _ are allowed" }
        guard name != "_" else { return "_ is not a name" }
        return nil
    }

    /// Why `name` cannot name a generated struct or namespace, or nil.
    static func problem(withTypeName name: String) -> String? {
        if let problem = problem(with: name) { return problem }
        if reservedTypeNames.contains(name) { return "the generated code needs \(name) for itself" }
        return nil
    }

    /// Why `name` cannot name a field, or nil.
    static func problem(withFieldName name: String) -> String? {
        if let problem = problem(with: name) { return problem }
        if reservedFieldNames.contains(name) { return "\(name) is a member every EIP712Struct has" }
        return nil
    }

    /// `name` as written in Swift source (in backticks when it is a keyword).
    static func spelled(_ name: String) -> String { keywords.contains(name) ? "`\(name)`" : name }
}
