/// Where the four members of a typed-data JSON object lie in its bytes, found without parsing them: the
/// fast path of ``TypedData/hashes(jsonUTF8:)`` for documents whose `types`, `primaryType` and `domain` are
/// byte for byte those of a document compiled before.
///
/// The scan is deliberately narrow: it answers only for an object whose keys are exactly `types`,
/// `primaryType`, `domain` and `message` (once each, no escapes), with a `primaryType` string without
/// escapes, JSON whitespace between tokens and nothing after the closing brace. Anything else gets `nil`,
/// and the caller parses the whole document. It checks the structure between the members; the members'
/// contents are checked by the caller (the three schema members by comparison with bytes already parsed
/// and compiled, the message by parsing it).
struct TypedDataQuickScan {
    /// The `types` value, brackets included.
    var types: Range<Int>
    /// The `primaryType` string's contents, quotes excluded.
    var primaryType: Range<Int>
    /// The `domain` value, brackets included.
    var domain: Range<Int>
    /// The `message` value.
    var message: Range<Int>

    /// The deepest nesting allowed inside `message`: the document's own limit (512) less the outer object.
    static let maximumMessageDepth = 511

    /// Scans `bytes`; `nil` when the document is not of the narrow shape above.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> TypedDataQuickScan? {
        var scanner = Scanner(bytes: bytes)
        var found: [Range<Int>?] = [nil, nil, nil, nil]
        scanner.skipWhitespace()
        guard scanner.take(0x7B) else { return nil }  // {
        while true {
            scanner.skipWhitespace()
            guard let member = scanner.memberName(), found[member] == nil else { return nil }
            scanner.skipWhitespace()
            guard scanner.take(0x3A) else { return nil }  // :
            scanner.skipWhitespace()
            guard let value = scanner.value() else { return nil }
            found[member] = value
            scanner.skipWhitespace()
            if scanner.take(0x2C) { continue }  // ,
            guard scanner.take(0x7D) else { return nil }  // }
            break
        }
        scanner.skipWhitespace()
        guard scanner.atEnd, let types = found[0], let primary = found[1], let domain = found[2],
            let message = found[3], bytes[types.lowerBound] == 0x7B, bytes[domain.lowerBound] == 0x7B,
            bytes[primary.lowerBound] == 0x22,
            !bytes[primary.lowerBound + 1..<primary.upperBound - 1].contains(0x5C)
        else { return nil }
        guard scanner.deepestMessage(message) <= maximumMessageDepth else { return nil }
        return TypedDataQuickScan(
            types: types, primaryType: primary.lowerBound + 1..<primary.upperBound - 1, domain: domain,
            message: message)
    }

    /// A cursor over the document.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var atEnd: Bool { position == bytes.count }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// `"types"`, `"primaryType"`, `"domain"` or `"message"`: 0, 1, 2 or 3.
        mutating func memberName() -> Int? {
            for (index, name) in TypedDataQuickScan.memberNames.enumerated() {
                let end = position + name.count
                guard end <= bytes.count, bytes[position..<end].elementsEqual(name) else { continue }
                position = end
                return index
            }
            return nil
        }

        /// One value's extent: a string (escapes skipped), or an object or array (brackets matched, strings
        /// skipped), or a scalar up to the next delimiter. Its contents are not checked here.
        mutating func value() -> Range<Int>? {
            let start = position
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case 0x22:
                guard skipString() else { return nil }
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
            return start..<position
        }

        /// Past a string starting at `position` (its opening quote).
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
        func deepestMessage(_ range: Range<Int>) -> Int {
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

    /// The member names with their quotes, in the order of ``scan(_:)``'s slots.
    static let memberNames: [[UInt8]] = ["types", "primaryType", "domain", "message"].map { Array("\"\($0)\"".utf8) }
}
