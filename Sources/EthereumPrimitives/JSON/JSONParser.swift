/// Why text is not JSON.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the problem in the input.
    public let offset: Int
    /// What was wrong.
    public let reason: String

    /// Builds an error.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// "invalid JSON at offset N: reason".
    public var description: String { "invalid JSON at offset \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses JSON text strictly (RFC 8259): one value, no trailing commas, no duplicate keys,
    /// valid UTF-8, nesting at most 512 deep. Numbers keep their literal text.
    public init(parsing text: String) throws(JSONParseError) {
        var text = text
        let result: Result<JSONValue, JSONParseError> = text.withUTF8 { buffer in
            var parser = JSONParser(buffer)
            do throws(JSONParseError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
        }
        self = try result.get()
    }

    /// Parses JSON given as UTF-8 bytes (see ``init(parsing:)-(String)``).
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            do throws(JSONParseError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
        }
        self = try result.get()
    }
}

/// A recursive-descent parser over a UTF-8 buffer.
struct JSONParser {
    let input: UnsafeBufferPointer<UInt8>
    var position = 0
    var depth = 0
    static let maximumDepth = 512

    init(_ input: UnsafeBufferPointer<UInt8>) { self.input = input }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == input.count else { throw fail("unexpected trailing characters") }
        return value
    }

    func fail(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? position, reason: reason)
    }

    @inline(__always) mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < input.count else { throw fail("unexpected end of input") }
        switch input[position] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= input.count else { throw fail("invalid literal") }
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for i in 0..<count where input[position + i] != bytes[i] { throw fail("invalid literal") }
        position += count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONObject {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [JSONObject.Member] = []
        skipWhitespace()
        if position < input.count && input[position] == UInt8(ascii: "}") {
            position += 1
            return JSONObject(members: members)
        }
        while true {
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: "\"") else {
                throw fail("expected a string key")
            }
            let keyOffset = position
            let key = try parseString()
            for member in members where member.key == key { throw fail("duplicate key \"\(key)\"", at: keyOffset) }
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONObject.Member(key: key, value: value))
            skipWhitespace()
            guard position < input.count else { throw fail("unterminated object") }
            if input[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard input[position] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            position += 1
            return JSONObject(members: members)
        }
    }

    mutating func parseArray() throws(JSONParseError) -> [JSONValue] {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < input.count && input[position] == UInt8(ascii: "]") {
            position += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < input.count else { throw fail("unterminated array") }
            if input[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard input[position] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            position += 1
            return elements
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> String {
        let start = position
        if input[position] == UInt8(ascii: "-") { position += 1 }
        guard position < input.count, isDigit(input[position]) else { throw fail("invalid number", at: start) }
        if input[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < input.count && isDigit(input[position]) { position += 1 }
        }
        if position < input.count && input[position] == UInt8(ascii: ".") {
            position += 1
            guard position < input.count, isDigit(input[position]) else { throw fail("invalid number", at: start) }
            while position < input.count && isDigit(input[position]) { position += 1 }
        }
        if position < input.count && (input[position] == UInt8(ascii: "e") || input[position] == UInt8(ascii: "E")) {
            position += 1
            if position < input.count && (input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-")) {
                position += 1
            }
            guard position < input.count, isDigit(input[position]) else { throw fail("invalid number", at: start) }
            while position < input.count && isDigit(input[position]) { position += 1 }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: input[start..<position]), as: UTF8.self)
    }

    @inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    mutating func parseString() throws(JSONParseError) -> String {
        let start = position
        position += 1
        let contentStart = position
        while position < input.count {
            let c = input[position]
            if c == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: input[contentStart..<position])
                position += 1
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: start)
                }
                return text
            }
            if c == UInt8(ascii: "\\") { return try parseEscapedString(from: contentStart, stringStart: start) }
            guard c >= 0x20 else { throw fail("control character in string") }
            position += 1
        }
        throw fail("unterminated string", at: start)
    }

    mutating func parseEscapedString(from contentStart: Int, stringStart: Int) throws(JSONParseError) -> String {
        var bytes = Array(UnsafeBufferPointer(rebasing: input[contentStart..<position]))
        while position < input.count {
            let c = input[position]
            switch c {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: stringStart)
                }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard position < input.count else { break }
                let e = input[position]
                position += 1
                switch e {
                case UInt8(ascii: "\""): bytes.append(0x22)
                case UInt8(ascii: "\\"): bytes.append(0x5C)
                case UInt8(ascii: "/"): bytes.append(0x2F)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < input.count, input[position] == UInt8(ascii: "\\"),
                            input[position + 1] == UInt8(ascii: "u")
                        else { throw fail("unpaired surrogate") }
                        position += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
                    bytes.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw fail("invalid escape", at: position - 2)
                }
            default:
                guard c >= 0x20 else { throw fail("control character in string") }
                bytes.append(c)
                position += 1
            }
        }
        throw fail("unterminated string", at: stringStart)
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= input.count else { throw fail("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let n = Hex.nibble(input[position]) else { throw fail("invalid \\u escape") }
            value = value << 4 | UInt32(n)
            position += 1
        }
        return value
    }
}
