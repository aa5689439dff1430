/// Recursive Length Prefix encoding and strict decoding (Ethereum Yellow Paper, appendix B).
///
/// Encoding always produces the canonical form. Decoding accepts only the canonical form: exactly
/// one item with no trailing bytes, minimal headers, and single bytes below `0x80` as themselves.
public enum RLP {
    /// The list nesting depth ``decode(_:maxDepth:)`` accepts by default.
    ///
    /// Every level of nesting costs at least one input byte, so without a limit a small hostile input
    /// could recurse deeply; Ethereum structures (transactions, headers, receipts) nest a few levels.
    public static let defaultMaxDepth = 1024

    // MARK: - Encoding

    /// The canonical RLP encoding of `item`.
    ///
    /// Computes every length first, then writes once into a buffer of exactly the right size.
    public static func encode(_ item: RLPItem) -> [UInt8] {
        // Pre-order payload lengths of every list, so each is computed once.
        var listLengths: [Int] = []
        let total = measure(item, &listLengths)
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            var pos = 0
            var cursor = 0
            write(item, into: buffer, at: &pos, listLengths: listLengths, cursor: &cursor)
            precondition(pos == total, "RLP encoder wrote \(pos) bytes, measured \(total)")
            initialized = total
        }
    }

    /// Number of bytes needed for `n` in minimal big-endian form (0 for 0).
    @inline(__always) static func byteCount(_ n: Int) -> Int {
        (Int.bitWidth - n.leadingZeroBitCount + 7) / 8
    }

    @inline(__always) static func headerLength(payload: Int) -> Int {
        payload < 56 ? 1 : 1 + byteCount(payload)
    }

    /// Total encoded length of `item`; appends list payload lengths in pre-order.
    static func measure(_ item: RLPItem, _ listLengths: inout [Int]) -> Int {
        switch item {
        case .bytes(let b):
            if b.count == 1 && b[0] < 0x80 { return 1 }
            return headerLength(payload: b.count) + b.count
        case .list(let items):
            let slot = listLengths.count
            listLengths.append(0)
            var payload = 0
            for element in items { payload += measure(element, &listLengths) }
            listLengths[slot] = payload
            return headerLength(payload: payload) + payload
        }
    }

    @inline(__always) static func writeHeader(
        payload: Int, shortBase: UInt8, longBase: UInt8,
        into buffer: UnsafeMutableBufferPointer<UInt8>, at pos: inout Int
    ) {
        if payload < 56 {
            buffer[pos] = shortBase + UInt8(truncatingIfNeeded: payload)
            pos += 1
        } else {
            let n = byteCount(payload)
            buffer[pos] = longBase + UInt8(truncatingIfNeeded: n)
            for k in 0..<n {
                buffer[pos + 1 + k] = UInt8(truncatingIfNeeded: payload >> (8 * (n - 1 - k)))
            }
            pos += 1 + n
        }
    }

    static func write(
        _ item: RLPItem, into buffer: UnsafeMutableBufferPointer<UInt8>, at pos: inout Int,
        listLengths: [Int], cursor: inout Int
    ) {
        switch item {
        case .bytes(let b):
            if b.count == 1 && b[0] < 0x80 {
                buffer[pos] = b[0]
                pos += 1
                return
            }
            writeHeader(payload: b.count, shortBase: 0x80, longBase: 0xb7, into: buffer, at: &pos)
            if !b.isEmpty {
                pos = buffer[pos..<(pos + b.count)].initialize(fromContentsOf: b)
            }
        case .list(let items):
            let payload = listLengths[cursor]
            cursor += 1
            writeHeader(payload: payload, shortBase: 0xc0, longBase: 0xf7, into: buffer, at: &pos)
            for element in items {
                write(element, into: buffer, at: &pos, listLengths: listLengths, cursor: &cursor)
            }
        }
    }

    // MARK: - Decoding

    /// Decodes exactly one canonical RLP item from `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the complete encoding; nothing may follow the item.
    ///   - maxDepth: the deepest list nesting accepted (the outermost list is depth 1).
    /// - Throws: ``RLPError`` naming the problem and its byte offset: truncated input, trailing
    ///   bytes, an element larger than its list, a long-form header for fewer than 56 bytes, a
    ///   length with a leading zero byte, a single byte below `0x80` wrapped in `0x81`, a length
    ///   that overflows `Int`, or nesting deeper than `maxDepth`.
    public static func decode(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(RLPError) -> RLPItem {
        try bytes.withUnsafeBufferPointer { (buffer) throws(RLPError) -> RLPItem in
            let decoder = Decoder(buffer: buffer, maxDepth: maxDepth)
            var pos = 0
            let item = try decoder.item(at: &pos, end: buffer.count, depth: 0)
            guard pos == buffer.count else { throw .trailingBytes(offset: pos) }
            return item
        }
    }

    struct Decoder {
        let buffer: UnsafeBufferPointer<UInt8>
        let maxDepth: Int

        /// The error for an item at `offset` running past `end`.
        @inline(__always) func overrun(at offset: Int, end: Int) -> RLPError {
            end == buffer.count ? .truncated(offset: offset) : .elementExceedsList(offset: offset)
        }

        /// Reads a long-form length of `count` bytes (1...8) starting at `offset`.
        func longLength(at offset: Int, count: Int, header: Int, end: Int) throws(RLPError) -> Int {
            guard count <= end - offset else { throw overrun(at: header, end: end) }
            guard buffer[offset] != 0 else { throw .leadingZeroInLength(offset: offset) }
            var value: UInt64 = 0
            for i in offset..<(offset + count) { value = value << 8 | UInt64(buffer[i]) }
            guard value <= UInt64(Int.max) else { throw .lengthOverflow(offset: offset) }
            guard value >= 56 else { throw .nonCanonicalSize(offset: header) }
            return Int(value)
        }

        /// Decodes the item whose header is at `pos`, which must end by `end`; advances `pos` past it.
        func item(at pos: inout Int, end: Int, depth: Int) throws(RLPError) -> RLPItem {
            let p = pos
            guard p < end else { throw overrun(at: p, end: end) }
            let b = buffer[p]
            let start: Int
            let length: Int
            let isList: Bool
            switch b {
            case 0x00...0x7f:
                pos = p + 1
                return .bytes([b])
            case 0x80...0xb7:
                start = p + 1
                length = Int(b &- 0x80)
                isList = false
            case 0xb8...0xbf:
                let n = Int(b &- 0xb7)
                length = try longLength(at: p + 1, count: n, header: p, end: end)
                start = p + 1 + n
                isList = false
            case 0xc0...0xf7:
                start = p + 1
                length = Int(b &- 0xc0)
                isList = true
            default:
                let n = Int(b &- 0xf7)
                length = try longLength(at: p + 1, count: n, header: p, end: end)
                start = p + 1 + n
                isList = true
            }
            guard length <= end - start else { throw overrun(at: p, end: end) }
            let itemEnd = start + length
            pos = itemEnd
            if !isList {
                if length == 1 && buffer[start] < 0x80 { throw .nonCanonicalSingleByte(offset: p) }
                return .bytes(Array(buffer[start..<itemEnd]))
            }
            guard depth < maxDepth else { throw .nestingTooDeep(offset: p) }
            var items: [RLPItem] = []
            var q = start
            while q < itemEnd {
                items.append(try item(at: &q, end: itemEnd, depth: depth + 1))
            }
            return .list(items)
        }
    }
}
