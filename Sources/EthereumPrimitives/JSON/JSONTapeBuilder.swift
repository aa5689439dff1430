/// Iterative parser writing a ``JSONDocument`` tape.
///
/// It reads a copy of the input followed by ``padding`` zero bytes: the first is a sentinel that no
/// token accepts, so scanning loops need no bounds checks, and the rest make 8-byte reads near the
/// end safe. While a container is open, its node's `next` holds the index of the enclosing container
/// (so no separate stack is needed) and its `count` counts the members completed so far.
struct JSONTapeBuilder {
    /// Zero bytes the input buffer must have after its last byte.
    static let padding = 8
    static let maximumDepth = 512
    /// Node offsets are 32-bit, and unescaped string contents are addressed past the input's end
    /// (they are never longer than the input): so at most half of `Int32.max`, 1 GiB.
    static let maximumInputLength = Int(Int32.max) / 2

    /// Node storage, grown by doubling; ownership passes to the document (``takeNodes()``).
    private var storage: UnsafeMutablePointer<JSONDocument.Node>
    private var capacity: Int
    private(set) var nodeCount = 0
    /// Contents of strings that had escapes, unescaped; nodes refer to them past the input's end.
    private(set) var unescaped: [UInt8] = []
    private let base: UnsafePointer<UInt8>
    /// Input length; `base[end]` is the zero sentinel.
    private let end: Int

    /// Objects with at most this many members find duplicate keys by comparing with each earlier
    /// key; larger ones keep a set of their keys, so a hostile object of n keys costs O(n), not
    /// O(n²).
    static let linearKeyCheckLimit = 16
    /// The keys of each open object that has outgrown ``linearKeyCheckLimit``, by node index.
    private var keySets: [Int: Set<[UInt8]>] = [:]

    /// A builder over `input`, which must be followed by ``padding`` zero bytes.
    init(paddedInput base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        end = count
        capacity = max(16, min(count / 8 + 8, 1 << 20))  // grown by doubling past a million nodes
        storage = .allocate(capacity: capacity)
    }

    /// The nodes as a buffer owned by the caller; the builder must not be used afterwards.
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

    @inline(__always) private mutating func appendScalar(_ kind: JSONKind, start: Int, end: Int, flag: Bool = false) {
        push(
            JSONDocument.Node(
                kind: kind, flag: flag, start: Int32(start), end: Int32(end), next: Int32(nodeCount + 1), count: 0))
    }

    private func fail(_ reason: String, at offset: Int) -> JSONParseError {
        JSONParseError(offset: offset, reason: reason)
    }

    /// The first non-whitespace offset at or after `p` (stops at the sentinel).
    @inline(__always) private func skipWhitespace(_ p: Int) -> Int {
        var p = p
        while true {
            let c = base[p]
            if c > 0x20 { return p }
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return p }
            p += 1
            // A run of spaces (indentation) in one step: count the leading 0x20 bytes of the next 8.
            let spaces = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self) ^ 0x2020_2020_2020_2020
            p += spaces == 0 ? 8 : spaces.trailingZeroBitCount >> 3
        }
    }

    mutating func parse() throws(JSONParseError) {
        precondition(end <= Self.maximumInputLength, "JSONDocument refuses longer inputs")
        /// The innermost open container, or -1 at the top level.
        var current = -1
        var depth = 0
        var p = skipWhitespace(0)
        value: while true {
            // At the start of a value.
            let c = base[p]
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                guard depth <= Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)", at: p) }
                let isObject = c == UInt8(ascii: "{")
                let index = nodeCount
                push(
                    JSONDocument.Node(
                        kind: isObject ? .object : .array, flag: false, start: Int32(p), end: 0, next: Int32(current),
                        count: 0))
                current = index
                p = skipWhitespace(p + 1)
                if base[p] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    close(&current, at: p)
                    depth -= 1
                    p += 1
                } else {
                    if isObject { p = try key(p, object: index) }
                    continue value
                }
            case UInt8(ascii: "\""): p = try string(p)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): p = try number(p)
            case UInt8(ascii: "t"): p = try literal(p, "true", .bool, flag: true)
            case UInt8(ascii: "f"): p = try literal(p, "false", .bool, flag: false)
            case UInt8(ascii: "n"): p = try literal(p, "null", .null, flag: false)
            default: throw fail(p == end ? "unexpected end of input" : "unexpected character", at: p)
            }
            // A value is complete: continue its container (closing as many as end here).
            while current >= 0 {
                storage[current].count += 1
                p = skipWhitespace(p)
                let isObject = storage[current].kind == .object
                let c = base[p]
                if c == UInt8(ascii: ",") {
                    p = skipWhitespace(p + 1)
                    if isObject { p = try key(p, object: current) }
                    continue value
                }
                guard c == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    if p == end { throw fail(isObject ? "unterminated object" : "unterminated array", at: p) }
                    throw fail(isObject ? "expected ',' or '}'" : "expected ',' or ']'", at: p)
                }
                close(&current, at: p)
                depth -= 1
                p += 1
            }
            break
        }
        p = skipWhitespace(p)
        guard p == end else { throw fail("unexpected trailing characters", at: p) }
    }

    /// Finishes the open container `current` whose closing bracket is at `p`; `current` becomes its parent.
    @inline(__always) private mutating func close(_ current: inout Int, at p: Int) {
        if storage[current].count > Self.linearKeyCheckLimit && storage[current].kind == .object {
            keySets[current] = nil
        }
        let parent = Int(storage[current].next)
        storage[current].end = Int32(p + 1)
        storage[current].next = Int32(nodeCount)
        current = parent
    }

    /// A member key at `p` of the open object `object`, and its colon; returns the offset of the value.
    @inline(__always) private mutating func key(_ p: Int, object: Int) throws(JSONParseError) -> Int {
        guard base[p] == UInt8(ascii: "\"") else { throw fail("expected a string key", at: p) }
        let keyIndex = nodeCount
        var q = try string(p)
        let earlier = Int(storage[object].count)
        if earlier > Self.linearKeyCheckLimit {
            try insertKey(keyIndex, intoSetOf: object, offset: p)
        } else if earlier > 0 {
            try checkDuplicate(keyIndex: keyIndex, firstMember: object + 1, count: earlier, offset: p)
            if earlier == Self.linearKeyCheckLimit {
                startKeySet(of: object, firstMember: object + 1, count: earlier, plus: keyIndex)
            }
        }
        q = skipWhitespace(q)
        guard base[q] == UInt8(ascii: ":") else { throw fail("expected ':'", at: q) }
        return skipWhitespace(q + 1)
    }

    /// The bytes of a key node (from the input, or from the unescaped area).
    private func keyBytes(_ index: Int) -> [UInt8] {
        let node = storage[index]
        if Int(node.start) >= end { return Array(unescaped[(Int(node.start) - end)..<(Int(node.end) - end)]) }
        return Array(UnsafeBufferPointer(start: base + Int(node.start), count: Int(node.end - node.start)))
    }

    /// Starts the key set of `object` with its first `count` keys and the key node `newKey` (all
    /// known to be distinct).
    private mutating func startKeySet(of object: Int, firstMember: Int, count: Int, plus newKey: Int) {
        var keys = Set<[UInt8]>(minimumCapacity: count * 4)
        var member = firstMember
        for _ in 0..<count {
            keys.insert(keyBytes(member))
            member = Int(storage[member + 1].next)
        }
        keys.insert(keyBytes(newKey))
        keySets[object] = keys
    }

    /// Adds the key node `keyIndex` to the key set of `object`, refusing a key already there.
    private mutating func insertKey(_ keyIndex: Int, intoSetOf object: Int, offset: Int) throws(JSONParseError) {
        let key = keyBytes(keyIndex)
        guard keySets[object, default: []].insert(key).inserted else {
            throw fail(duplicateKeyMessage(key), at: offset)
        }
    }

    /// `duplicate key "…"` (a long key abbreviated).
    private func duplicateKeyMessage(_ key: [UInt8]) -> String {
        "duplicate key \"\(EchoedText.abbreviated(String(decoding: key, as: UTF8.self)))\""
    }

    /// Refuses a key equal to one of the `count` earlier keys of its object (walks the earlier members).
    private func checkDuplicate(keyIndex: Int, firstMember: Int, count: Int, offset: Int) throws(JSONParseError) {
        let newKey = storage[keyIndex]
        let newLength = Int(newKey.end - newKey.start)
        var candidate = firstMember
        for _ in 0..<count {
            let old = storage[candidate]
            if Int(old.end - old.start) == newLength {
                let equal: Bool
                if Int(old.start) >= end || Int(newKey.start) >= end {
                    equal = keyBytes(candidate) == keyBytes(keyIndex)
                } else {
                    equal = newLength == 0 || memcmpEqual(base + Int(old.start), base + Int(newKey.start), newLength)
                }
                if equal {
                    throw fail(duplicateKeyMessage(keyBytes(keyIndex)), at: offset)
                }
            }
            candidate = Int(storage[candidate + 1].next)
        }
    }

    private mutating func literal(_ p: Int, _ text: StaticString, _ kind: JSONKind, flag: Bool) throws(JSONParseError)
        -> Int
    {
        let count = text.utf8CodeUnitCount
        // At most 4 bytes past the sentinel are read: within the padding.
        for i in 1..<count where base[p + i] != text.utf8Start[i] { throw fail("invalid literal", at: p) }
        appendScalar(kind, start: p, end: p + count, flag: flag)
        return p + count
    }

    @inline(__always) private func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    private mutating func number(_ start: Int) throws(JSONParseError) -> Int {
        var p = start
        if base[p] == UInt8(ascii: "-") { p += 1 }
        guard isDigit(base[p]) else { throw fail("invalid number", at: start) }
        if base[p] == UInt8(ascii: "0") {
            p += 1
        } else {
            while isDigit(base[p]) { p += 1 }
        }
        if base[p] == UInt8(ascii: ".") {
            p += 1
            guard isDigit(base[p]) else { throw fail("invalid number", at: start) }
            while isDigit(base[p]) { p += 1 }
        }
        if base[p] | 0x20 == UInt8(ascii: "e") {
            p += 1
            if base[p] == UInt8(ascii: "+") || base[p] == UInt8(ascii: "-") { p += 1 }
            guard isDigit(base[p]) else { throw fail("invalid number", at: start) }
            while isDigit(base[p]) { p += 1 }
        }
        appendScalar(.number, start: start, end: p)
        return p
    }

    /// The string whose opening quote is at `quote`; returns the offset after its closing quote.
    @inline(__always) private mutating func string(_ quote: Int) throws(JSONParseError) -> Int {
        let contentStart = quote + 1
        var p = contentStart
        var nonASCII = false
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while true {
            // Skip 8 plain bytes at a time: no quote, backslash, control character or non-ASCII byte.
            // The sentinel is a control character, so this never runs past the padding.
            while true {
                let word = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
                let quoteBits = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special =
                    ((quoteBits &- ones) & ~quoteBits) | ((backslash &- ones) & ~backslash)
                    | ((word &- ones &* 0x20) & ~word) | word
                let found = special & highs
                if found != 0 {
                    p += found.trailingZeroBitCount >> 3
                    break
                }
                p += 8
            }
            let c = base[p]
            if c == UInt8(ascii: "\"") {
                if nonASCII
                    && !UTF8Validation.isValid(UnsafeBufferPointer(start: base + contentStart, count: p - contentStart))
                {
                    throw fail("invalid UTF-8 in string", at: quote)
                }
                appendScalar(.string, start: contentStart, end: p)
                return p + 1
            }
            if c == UInt8(ascii: "\\") { return try escapedString(contentStart: contentStart, quote: quote, from: p) }
            if c >= 0x80 {
                nonASCII = true
            } else {
                // A control character, or the sentinel.
                throw p == end ? fail("unterminated string", at: quote) : fail("control character in string", at: p)
            }
            p += 1
        }
    }

    /// The rest of a string that has escapes, from the first backslash at `from`; the content is
    /// unescaped into ``unescaped``.
    private mutating func escapedString(contentStart: Int, quote: Int, from: Int) throws(JSONParseError) -> Int {
        let sideStart = unescaped.count
        unescaped.append(contentsOf: UnsafeBufferPointer(start: base + contentStart, count: from - contentStart))
        var p = from
        while p < end {
            let c = base[p]
            switch c {
            case UInt8(ascii: "\""):
                let content = unescaped.withUnsafeBufferPointer {
                    UTF8Validation.isValid(UnsafeBufferPointer(rebasing: $0[sideStart...]))
                }
                guard content else { throw fail("invalid UTF-8 in string", at: quote) }
                appendScalar(.string, start: end + sideStart, end: end + unescaped.count)
                return p + 1
            case UInt8(ascii: "\\"):
                p += 1
                guard p < end else { throw fail("unterminated string", at: quote) }
                let e = base[p]
                p += 1
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
                    var scalar = try hex4(&p)
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard p + 1 < end, base[p] == UInt8(ascii: "\\"), base[p + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate", at: p)
                        }
                        p += 2
                        let low = try hex4(&p)
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate", at: p) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate", at: p)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid escape", at: p) }
                    unescaped.append(contentsOf: unicode.utf8)
                default: throw fail("invalid escape", at: p - 2)
                }
            default:
                guard c >= 0x20 else { throw fail("control character in string", at: p) }
                unescaped.append(c)
                p += 1
            }
        }
        throw fail("unterminated string", at: quote)
    }

    private func hex4(_ p: inout Int) throws(JSONParseError) -> UInt32 {
        guard p + 4 <= end else { throw fail("invalid \\u escape", at: p) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let n = Hex.nibble(base[p]) else { throw fail("invalid \\u escape", at: p) }
            value = value << 4 | UInt32(n)
            p += 1
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
