// Literals for JSON values, so documents can be written in Swift:
//
//     let message: JSONValue = ["owner": "0x…", "amount": 1_000_000_000_000_000_000_000, "tags": ["a"], "memo": .null]
//
// Integer literals of any size keep their exact decimal text; there is no floating-point literal (a
// `Double` would not keep the text you typed: write `.number("1.5")`).
//
// JSON `null` is `.null`, not `nil`: `JSONValue` is deliberately not `ExpressibleByNilLiteral`. With it,
// every `nil` the compiler can read as either `Optional.none` or `JSONValue.null` picks one silently,
// and existing code changes meaning without an error — `json.flatMap { $0 == .null ? nil : $0 }`
// stops filtering nulls out (it did in WalletConnectPay). Swift's documentation discourages the
// conformance for exactly this reason.

extension JSONValue: ExpressibleByBooleanLiteral {
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A number: the literal's exact decimal text, whatever its size.
    public init(integerLiteral value: StaticBigInt) { self = .number(Self.decimalText(of: value)) }

    /// Decimal digits of a literal of any size, with a leading `-` when negative.
    static func decimalText(of value: StaticBigInt) -> String {
        let negative = value.signum() < 0
        // The magnitude's words, least significant first: two's complement words negated when negative.
        let count = (value.bitWidth + UInt.bitWidth - 1) / UInt.bitWidth
        var words = (0..<count).map { value[$0] }
        if negative {
            var carry = true
            for i in words.indices {
                let (sum, overflow) = (~words[i]).addingReportingOverflow(carry ? 1 : 0)
                words[i] = sum
                carry = overflow
            }
        }
        // Repeated division by 10^19 (the largest power of ten in 64 bits), least significant chunk first.
        let chunkDivisor: UInt = 10_000_000_000_000_000_000
        var chunks: [UInt] = []
        while let last = words.last, last == 0 { words.removeLast() }
        while !words.isEmpty {
            var remainder: UInt = 0
            for i in words.indices.reversed() {
                let (quotient, rest) = chunkDivisor.dividingFullWidth((remainder, words[i]))
                words[i] = quotient
                remainder = rest
            }
            chunks.append(remainder)
            while let last = words.last, last == 0 { words.removeLast() }
        }
        guard let top = chunks.last else { return "0" }
        var text = negative ? "-" : ""
        text += String(top)
        for chunk in chunks.dropLast().reversed() {
            let digits = String(chunk)
            text += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return text
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object, members in the order written; a key written twice stops the program with a
    /// precondition failure naming it (as a duplicate key in a `Dictionary` literal does).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(literalMembers: elements))
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Members in the order written; a key written twice stops the program with a precondition failure
    /// naming it (as a duplicate key in a `Dictionary` literal does).
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(literalMembers: elements) }

    init(literalMembers elements: [(String, JSONValue)]) {
        var seen = Set<String>()
        var members: [Member] = []
        members.reserveCapacity(elements.count)
        for (key, value) in elements {
            precondition(
                seen.insert(key).inserted,
                "JSONObject: duplicate key \"\(EchoedText.abbreviated(key))\" in a dictionary literal")
            members.append(Member(key: key, value: value))
        }
        self.init(members: members)
    }
}
