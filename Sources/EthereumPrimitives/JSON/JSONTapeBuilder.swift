/// Recursive-descent parser writing a ``JSONDocument`` tape.
struct JSONTapeBuilder {
    /// Node storage, grown by doubling; ownership passes to the document (``takeNodes()``).
    private var storage: UnsafeMutablePointer<JSONDocument.Node>
    private var capacity: Int
    private(set) var nodeCount = 0
    var unescaped: [UInt8] = []
    private var input = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var position = 0
    private var depth = 0
    static let maximumDepth = 512

    /// Offset of the unescaped area in the final text buffer (= input length).
    private let unescapedBase: Int

    init(capacityHint: Int, inputLength: Int) {
        capacity = max(16, capacityHint)
        storage = .allocate(capacity: capacity)
        unescapedBase = inputLength
    }

    /// The nodes as an exactly-sized buffer owned by the caller; the builder must not be used afterwards.
    func takeNodes() -> UnsafeMutableBufferPointer<JSONDocument.Node> {
        UnsafeMutableBufferPointer(start: storage, count: nodeCount)
    }

    /// Frees the node storage (after a parse error).
    func discard() { storage.deallocate() }

    @inline(__always) private mutating func push(_ node: JSONDocument.Node) {
        if nodeCount == capacity { grow() }
        (storage + nodeCount).initialize(to: node)
        nodeCount += 1
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<JSONDocument.Node>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: storage, count: nodeCount)
        storage.deallocate()
        storage = bigger
        capacity *= 2
    }

    @inline(__always) private func node(_ index: Int) -> JSONDocument.Node { storage[index] }

    mutating func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) {
        guard buffer.count < Int(Int32.max) else { throw JSONParseError(offset: 0, reason: "document too large") }
        input = buffer
        position = 0
        skipWhitespace()
        try parseValue()
        skipWhitespace()
        guard position == input.count else { throw fail("unexpected trailing characters") }
    }

    private func fail(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? position, reason: reason)
    }

    @inline(__always) private mutating func skipWhitespace() {
        guard let base = input.baseAddress else { return }
        var p = position
        let count = input.count
        while p < count {
            switch base[p] {
            case 0x20, 0x0A, 0x0D, 0x09: p += 1
            default:
                position = p
                return
            }
        }
        position = p
    }

    @inline(__always) private mutating func appendScalar(_ kind: JSONKind, start: Int, end: Int, flag: Bool = false) {
        let index = Int32(nodeCount)
        push(JSONDocument.Node(kind: kind, flag: flag, start: Int32(start), end: Int32(end), next: index + 1, count: 0))
    }

    private mutating func parseValue() throws(JSONParseError) {
        guard position < input.count else { throw fail("unexpected end of input") }
        switch input[position] {
        case UInt8(ascii: "{"): try parseObject()
        case UInt8(ascii: "["): try parseArray()
        case UInt8(ascii: "\""): try parseString()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            appendScalar(.bool, start: position - 4, end: position, flag: true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            appendScalar(.bool, start: position - 5, end: position, flag: false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            appendScalar(.null, start: position - 4, end: position)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= input.count else { throw fail("invalid literal") }
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for i in 0..<count where input[position + i] != bytes[i] { throw fail("invalid literal") }
        position += count
    }

    private mutating func openContainer(_ kind: JSONKind) throws(JSONParseError) -> Int {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        let index = nodeCount
        push(JSONDocument.Node(kind: kind, flag: false, start: Int32(position), end: 0, next: 0, count: 0))
        position += 1
        return index
    }

    private mutating func closeContainer(_ index: Int, count: Int) {
        depth -= 1
        position += 1
        storage[index].end = Int32(position)
        storage[index].next = Int32(nodeCount)
        storage[index].count = Int32(count)
    }

    private mutating func parseObject() throws(JSONParseError) {
        let index = try openContainer(.object)
        var count = 0
        skipWhitespace()
        if position < input.count && input[position] == UInt8(ascii: "}") {
            closeContainer(index, count: 0)
            return
        }
        while true {
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let keyOffset = position
            let keyIndex = nodeCount
            try parseString()
            try checkDuplicate(keyIndex: keyIndex, firstMember: index + 1, count: count, offset: keyOffset)
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            position += 1
            skipWhitespace()
            try parseValue()
            count += 1
            skipWhitespace()
            guard position < input.count else { throw fail("unterminated object") }
            if input[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard input[position] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            closeContainer(index, count: count)
            return
        }
    }

    /// The bytes of a key node (from the input, or from the unescaped area).
    private func keyBytes(_ index: Int) -> [UInt8] {
        let node = node(index)
        if Int(node.start) >= unescapedBase {
            return Array(unescaped[(Int(node.start) - unescapedBase)..<(Int(node.end) - unescapedBase)])
        }
        return Array(input[Int(node.start)..<Int(node.end)])
    }

    /// Refuses a key equal to an earlier key of the same object (walks the earlier members).
    private func checkDuplicate(keyIndex: Int, firstMember: Int, count: Int, offset: Int) throws(JSONParseError) {
        guard count > 0 else { return }
        let newKey = node(keyIndex)
        let newLength = Int(newKey.end - newKey.start)
        var candidate = firstMember
        for _ in 0..<count {
            let old = node(candidate)
            if Int(old.end - old.start) == newLength {
                let equal: Bool
                if Int(old.start) >= unescapedBase || Int(newKey.start) >= unescapedBase {
                    equal = keyBytes(candidate) == keyBytes(keyIndex)
                } else {
                    equal = newLength == 0
                        || memcmpEqual(input.baseAddress! + Int(old.start), input.baseAddress! + Int(newKey.start), newLength)
                }
                if equal {
                    throw fail("duplicate key \"\(String(decoding: keyBytes(keyIndex), as: UTF8.self))\"", at: offset)
                }
            }
            candidate = Int(node(candidate + 1).next)
        }
    }

    private mutating func parseArray() throws(JSONParseError) {
        let index = try openContainer(.array)
        var count = 0
        skipWhitespace()
        if position < input.count && input[position] == UInt8(ascii: "]") {
            closeContainer(index, count: 0)
            return
        }
        while true {
            skipWhitespace()
            try parseValue()
            count += 1
            skipWhitespace()
            guard position < input.count else { throw fail("unterminated array") }
            if input[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard input[position] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            closeContainer(index, count: count)
            return
        }
    }

    @inline(__always) private func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    private mutating func parseNumber() throws(JSONParseError) {
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
        if position < input.count && (input[position] | 0x20) == UInt8(ascii: "e") {
            position += 1
            if position < input.count && (input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-")) {
                position += 1
            }
            guard position < input.count, isDigit(input[position]) else { throw fail("invalid number", at: start) }
            while position < input.count && isDigit(input[position]) { position += 1 }
        }
        appendScalar(.number, start: start, end: position)
    }

    private mutating func parseString() throws(JSONParseError) {
        let quote = position
        let contentStart = position + 1
        let base = input.baseAddress!
        let count = input.count
        var p = contentStart
        var nonASCII = false
        // Skip 8 plain bytes at a time: no quote, backslash, control character or non-ASCII byte.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while p + 8 <= count {
            let word = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
            let quoteBits = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special =
                ((quoteBits &- ones) & ~quoteBits) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                | word
            let found = special & highs
            if found != 0 {
                // Jump to the first special byte; the loop below decides what it is.
                p += found.trailingZeroBitCount >> 3
                break
            }
            p += 8
        }
        while p < count {
            let c = base[p]
            if c == UInt8(ascii: "\"") {
                if nonASCII && !UTF8Validation.isValid(UnsafeBufferPointer(start: base + contentStart, count: p - contentStart)) {
                    throw fail("invalid UTF-8 in string", at: quote)
                }
                appendScalar(.string, start: contentStart, end: p)
                position = p + 1
                return
            }
            if c == UInt8(ascii: "\\") {
                position = p
                try parseEscapedString(contentStart: contentStart, quote: quote)
                return
            }
            guard c >= 0x20 else {
                position = p
                throw fail("control character in string")
            }
            if c >= 0x80 { nonASCII = true }
            p += 1
        }
        throw fail("unterminated string", at: quote)
    }

    private mutating func parseEscapedString(contentStart: Int, quote: Int) throws(JSONParseError) {
        let sideStart = unescaped.count
        unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: input[contentStart..<position]))
        while position < input.count {
            let c = input[position]
            switch c {
            case UInt8(ascii: "\""):
                let content = unescaped.withUnsafeBufferPointer { UTF8Validation.isValid(UnsafeBufferPointer(rebasing: $0[sideStart...])) }
                guard content else { throw fail("invalid UTF-8 in string", at: quote) }
                appendScalar(.string, start: unescapedBase + sideStart, end: unescapedBase + unescaped.count)
                position += 1
                return
            case UInt8(ascii: "\\"):
                position += 1
                guard position < input.count else { throw fail("unterminated string", at: quote) }
                let e = input[position]
                position += 1
                switch e {
                case UInt8(ascii: "\""): unescaped.append(0x22)
                case UInt8(ascii: "\\"): unescaped.append(0x5C)
                case UInt8(ascii: "/"): unescaped.append(0x2F)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
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
                    unescaped.append(contentsOf: unicode.utf8)
                default: throw fail("invalid escape", at: position - 2)
                }
            default:
                guard c >= 0x20 else { throw fail("control character in string") }
                unescaped.append(c)
                position += 1
            }
        }
        throw fail("unterminated string", at: quote)
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
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

/// Strict UTF-8 validation (no overlongs, no surrogates, nothing past U+10FFFF).
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            func continuation(_ k: Int) -> Bool { i + k < n && bytes[i + k] & 0xC0 == 0x80 }
            switch b0 {
            case 0xC2...0xDF:
                guard continuation(1) else { return false }
                i += 2
            case 0xE0...0xEF:
                guard continuation(1), continuation(2) else { return false }
                let b1 = bytes[i + 1]
                if b0 == 0xE0 && b1 < 0xA0 { return false }
                if b0 == 0xED && b1 >= 0xA0 { return false }
                i += 3
            case 0xF0...0xF4:
                guard continuation(1), continuation(2), continuation(3) else { return false }
                let b1 = bytes[i + 1]
                if b0 == 0xF0 && b1 < 0x90 { return false }
                if b0 == 0xF4 && b1 >= 0x90 { return false }
                i += 4
            default: return false
            }
        }
        return true
    }
}
