#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Matches a typed-data JSON document against a schema compiled before, byte for byte, without parsing its
/// `types`, `primaryType` and `domain`: the fast path of ``TypedData/hashes(jsonUTF8:)``.
///
/// It answers only for an object whose keys are exactly `types`, `primaryType`, `domain` and `message`
/// (once each, no escapes), JSON whitespace between tokens, nothing after the closing brace, and whose
/// three schema members are exactly the cached bytes. Bytes equal to a JSON value already parsed are that
/// value (a value's end follows from its contents), so they need no second check; the message is parsed by
/// the caller. Anything else gets `nil`, and the caller parses the whole document.
enum RepeatedSchemaMatch {
    /// The deepest nesting allowed inside `message`: the document's own limit (512) less the outer object.
    static let maximumMessageDepth = 511
    /// Documents longer than this always take the full parse (far below the parser's own input limit).
    static let maximumDocumentLength = 1 << 29

    /// Where `message` lies when `bytes` is `schema`'s document shape; `nil` otherwise.
    static func messageRange(in bytes: UnsafeBufferPointer<UInt8>, schema: EIP712SchemaCache.RecentSchema)
        -> Range<Int>?
    {
        guard bytes.count <= maximumDocumentLength, schema.primaryTypeIsPlain else { return nil }
        var scanner = Scanner(bytes: bytes)
        var seen = (false, false, false, false)
        var message: Range<Int>?
        scanner.skipWhitespace()
        guard scanner.take(0x7B) else { return nil }  // {
        members: while true {
            scanner.skipWhitespace()
            guard let member = scanner.memberName() else { return nil }
            scanner.skipWhitespace()
            guard scanner.take(0x3A) else { return nil }  // :
            scanner.skipWhitespace()
            switch member {
            case 0:
                guard !seen.0, scanner.take(schema.types) else { return nil }
                seen.0 = true
            case 1:
                guard !seen.1, scanner.take(0x22), scanner.take(schema.primaryType), scanner.take(0x22) else {
                    return nil
                }
                seen.1 = true
            case 2:
                guard !seen.2, scanner.take(schema.domain) else { return nil }
                seen.2 = true
            default:
                guard !seen.3 else { return nil }
                seen.3 = true
                if seen.0 && seen.1 && seen.2 {
                    // The last member: the message runs to the object's closing brace (a message that does
                    // not end there fails to parse, and the caller then parses the whole document).
                    guard let close = lastNonWhitespace(bytes), bytes[close] == 0x7D, close > scanner.position
                    else { return nil }
                    var end = close
                    while end > scanner.position, Scanner.isWhitespace(bytes[end - 1]) { end -= 1 }
                    message = scanner.position..<end
                    scanner.position = close + 1
                    break members
                }
                guard let value = scanner.value() else { return nil }
                message = value
            }
            scanner.skipWhitespace()
            if scanner.take(0x2C) { continue }  // ,
            guard scanner.take(0x7D) else { return nil }  // }
            break
        }
        scanner.skipWhitespace()
        guard scanner.atEnd, seen.0, seen.1, seen.2, let message else { return nil }
        // Nesting deeper than the limit needs at least two brackets a level.
        if message.count >= 2 * maximumMessageDepth, scanner.deepest(in: message) > maximumMessageDepth { return nil }
        return message
    }

    private static func lastNonWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = bytes.count - 1
        while index >= 0, Scanner.isWhitespace(bytes[index]) { index -= 1 }
        return index >= 0 ? index : nil
    }

    /// The member names with their quotes: `types`, `primaryType`, `domain`, `message`.
    static let memberNames: [[UInt8]] = ["types", "primaryType", "domain", "message"].map { Array("\"\($0)\"".utf8) }

    /// A cursor over the document.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var atEnd: Bool { position == bytes.count }

        static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

        mutating func skipWhitespace() {
            while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// Takes `expected` when the document continues with exactly those bytes (memcmp).
        mutating func take(_ expected: [UInt8]) -> Bool {
            guard expected.count <= bytes.count - position, let base = bytes.baseAddress else { return false }
            let equal = expected.withUnsafeBufferPointer { expected in
                guard let start = expected.baseAddress else { return true }
                return memcmp(base + position, start, expected.count) == 0
            }
            guard equal else { return false }
            position += expected.count
            return true
        }

        /// The index of `"types"`, `"primaryType"`, `"domain"` or `"message"` at the cursor.
        mutating func memberName() -> Int? {
            for (index, name) in RepeatedSchemaMatch.memberNames.enumerated() {
                let end = position + name.count
                guard end <= bytes.count, bytes[position..<end].elementsEqual(name) else { continue }
                position = end
                return index
            }
            return nil
        }

        /// One value's extent (a message that is not the last member): a string (escapes skipped), an object
        /// or array (brackets counted, strings skipped), or a scalar up to the next delimiter. Its contents
        /// are checked by parsing it.
        mutating func value() -> Range<Int>? {
            let start = position
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case 0x22:
                guard skipString() else { return nil }
                return start..<position
            case 0x7B, 0x5B:
                var depth = 0
                while position < bytes.count {
                    switch bytes[position] {
                    case 0x22:
                        guard skipString() else { return nil }
                        continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D:
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return start..<position
                        }
                    default: break
                    }
                    position += 1
                }
                return nil
            default:
                while position < bytes.count {
                    switch bytes[position] {
                    case 0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D: return start < position ? start..<position : nil
                    default: position += 1
                    }
                }
                return nil
            }
        }

        /// Past the string whose opening quote is at the cursor.
        mutating func skipString() -> Bool {
            position += 1
            while position < bytes.count {
                switch bytes[position] {
                case 0x22:
                    position += 1
                    return true
                case 0x5C: position += 2
                default: position += 1
                }
            }
            return false
        }

        /// The deepest bracket nesting inside `range` (strings skipped).
        func deepest(in range: Range<Int>) -> Int {
            var cursor = Scanner(bytes: bytes, position: range.lowerBound)
            var depth = 0
            var deepest = 0
            while cursor.position < range.upperBound {
                switch bytes[cursor.position] {
                case 0x22:
                    _ = cursor.skipString()
                    continue
                case 0x7B, 0x5B:
                    depth += 1
                    deepest = max(deepest, depth)
                case 0x7D, 0x5D: depth -= 1
                default: break
                }
                cursor.position += 1
            }
            return deepest
        }
    }
}
