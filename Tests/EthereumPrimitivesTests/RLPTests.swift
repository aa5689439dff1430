import EthereumPrimitives
import SignerKitTestSupport
import Testing

private func hex(_ text: String) -> [UInt8] {
    do {
        return try Hex.decode(text)
    } catch {
        Issue.record("bad hex in test: \(text)")
        return []
    }
}

/// Straightforward recursive encoder (concatenation), to cross-check the single-buffer encoder.
private func referenceEncode(_ item: RLPItem) -> [UInt8] {
    func header(_ length: Int, _ short: UInt8, _ long: UInt8) -> [UInt8] {
        if length < 56 { return [short + UInt8(length)] }
        var be: [UInt8] = []
        var n = length
        while n > 0 {
            be.insert(UInt8(n & 0xff), at: 0)
            n >>= 8
        }
        return [long + UInt8(be.count)] + be
    }
    switch item {
    case .bytes(let b):
        if b.count == 1 && b[0] < 0x80 { return b }
        return header(b.count, 0x80, 0xb7) + b
    case .list(let items):
        let payload = items.flatMap(referenceEncode)
        return header(payload.count, 0xc0, 0xf7) + payload
    }
}

/// A random item: byte strings around the size boundaries, lists up to `depth` deep.
private func randomItem(_ rng: inout SplitMix64, depth: Int) -> RLPItem {
    if depth == 0 || Int.random(in: 0..<3, using: &rng) == 0 {
        let lengths = [0, 1, 1, 1, 2, 54, 55, 56, 57, 255, 256, 1024]
        let length = lengths[Int.random(in: 0..<lengths.count, using: &rng)]
        let ceiling: UInt8 = Bool.random(using: &rng) ? 0x7f : 0xff
        return .bytes((0..<length).map { _ in UInt8.random(in: 0...ceiling, using: &rng) })
    }
    let count = [0, 1, 2, 3, 5, 12][Int.random(in: 0..<6, using: &rng)]
    return .list((0..<count).map { _ in randomItem(&rng, depth: depth - 1) })
}

/// The header of a list with `payload` bytes of content.
private func listHeader(payload: Int) -> [UInt8] {
    if payload < 56 { return [0xc0 + UInt8(payload)] }
    var be: [UInt8] = []
    var n = payload
    while n > 0 {
        be.insert(UInt8(n & 0xff), at: 0)
        n >>= 8
    }
    return [0xf7 + UInt8(be.count)] + be
}

private func expectDecodeError(
    _ expected: RLPError, _ input: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(throws: expected, sourceLocation: sourceLocation) { try RLP.decode(input) }
}

@Suite struct RLPTests {
    // MARK: - Vectors (Ethereum wiki / Yellow Paper appendix B)

    static let lorem = "Lorem ipsum dolor sit amet, consectetur adipisicing elit"

    static let vectors: [(String, RLPItem, String)] = [
        ("dog", .string("dog"), "0x83646f67"),
        ("cat/dog list", [.string("cat"), .string("dog")], "0xc88363617483646f67"),
        ("empty string", .string(""), "0x80"),
        ("empty list", .emptyList, "0xc0"),
        ("integer 0", .uint(0), "0x80"),
        ("integer 15", .uint(15), "0x0f"),
        ("integer 1024", .uint(1024), "0x820400"),
        ("byte 0x00", .bytes([0x00]), "0x00"),
        ("byte 0x7f", .bytes([0x7f]), "0x7f"),
        ("byte 0x80", .bytes([0x80]), "0x8180"),
        ("integer 127", .uint(127), "0x7f"),
        ("integer 128", .uint(128), "0x8180"),
        ("integer 2^64-1", .uint(UInt64.max), "0x88ffffffffffffffff"),
        ("set-theoretic three", [[], [[]], [[], [[]]]], "0xc7c0c1c0c3c0c1c0"),
        ("nested list", [[.string("a")], .string("b")], "0xc3c16162"),
    ]

    @Test(arguments: vectors)
    func vector(name: String, item: RLPItem, encoding: String) throws {
        let bytes = hex(encoding)
        #expect(RLP.encode(item) == bytes, "encode \(name)")
        #expect(try RLP.decode(bytes) == item, "decode \(name)")
    }

    @Test func loremIpsum56Bytes() throws {
        let text = Self.lorem
        #expect(text.utf8.count == 56)
        let expected = [0xb8, 0x38] + Array(text.utf8)
        #expect(RLP.encode(.string(text)) == expected)
        let decoded = try RLP.decode(expected)
        #expect(decoded == .string(text))
        #expect(decoded.stringValue == text)
    }

    @Test func stringLengthBoundaries() throws {
        let s55 = [UInt8](repeating: 0xaa, count: 55)
        #expect(RLP.encode(.bytes(s55)) == [0xb7] + s55)
        let s1024 = [UInt8](repeating: 0x61, count: 1024)
        #expect(RLP.encode(.bytes(s1024)) == [0xb9, 0x04, 0x00] + s1024)
        let s70000 = [UInt8](repeating: 0x61, count: 70000)
        #expect(RLP.encode(.bytes(s70000)) == [0xba, 0x01, 0x11, 0x70] + s70000)
        #expect(try RLP.decode([0xba, 0x01, 0x11, 0x70] + s70000) == .bytes(s70000))
    }

    @Test func listLengthBoundaries() throws {
        // Payload of 55 bytes: short form; 56 bytes: long form 0xf838.
        let short54: RLPItem = .list([.bytes([UInt8](repeating: 1, count: 53))])  // 1 + 53 = 54
        #expect(RLP.encode(short54).prefix(2) == [0xf6, 0xb5])
        let short55: RLPItem = .list([.string(String(Self.lorem.dropLast(2)))])  // 1 + 54 = 55
        #expect(RLP.encode(short55).prefix(2) == [0xf7, 0xb6])
        let long56: RLPItem = .list([.string(String(Self.lorem.dropLast(1)))])  // 1 + 55 = 56
        let encoded = RLP.encode(long56)
        #expect(encoded.prefix(3) == [0xf8, 0x38, 0xb7])
        #expect(try RLP.decode(encoded) == long56)
    }

    @Test func integerBuilders() throws {
        #expect(RLPItem.uint(bigEndian: [0, 0, 4, 0]) == .bytes([4, 0]))
        #expect(RLPItem.uint(bigEndian: [0, 0]) == .empty)
        #expect(RLPItem.uint(bigEndian: [UInt8]()) == .empty)
        #expect(RLP.encode(.uint(bigEndian: [0, 0, 0, 0x0f])) == [0x0f])
        #expect(RLP.encode(.uint(bigEndian: [UInt8](repeating: 0, count: 32))) == [0x80])
        #expect(RLPItem.uint256(UInt256(1024)) == .uint(1024))
        #expect(RLPItem.uint256(UInt256.zero) == .empty)
        #expect(RLP.encode(.uint256(UInt256.max)) == [0xa0] + [UInt8](repeating: 0xff, count: 32))
        for value: UInt64 in [0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 1 << 32, UInt64.max] {
            #expect(try RLPItem.uint(value).uint64() == value)
            #expect(try RLP.decode(RLP.encode(.uint(value))).uint64() == value)
        }
        #expect(try RLPItem.uint256(UInt256.max).uint256() == UInt256.max)
    }

    @Test func integerAccessorsRejectNonCanonical() throws {
        #expect(try RLPItem.bytes([4, 0]).uintBytes() == [4, 0])
        #expect(try RLPItem.empty.uintBytes() == [])
        // 0x820004 decodes as a string but is not a canonical integer.
        let padded = try RLP.decode([0x82, 0x00, 0x04])
        #expect(throws: RLPError.nonCanonicalInteger) { try padded.uintBytes() }
        // Zero must be 0x80, not 0x00.
        #expect(throws: RLPError.nonCanonicalInteger) { try RLP.decode([0x00]).uint64() }
        #expect(throws: RLPError.expectedBytes) { try RLPItem.emptyList.uintBytes() }
        #expect(throws: RLPError.integerOverflow(maxBytes: 8)) {
            try RLPItem.bytes([1, 0, 0, 0, 0, 0, 0, 0, 0]).uint64()
        }
        #expect(throws: RLPError.integerOverflow(maxBytes: 32)) {
            try RLPItem.bytes([UInt8](repeating: 1, count: 33)).uint256()
        }
        #expect(throws: RLPError.integerOverflow(maxBytes: 2)) { try RLPItem.uint(0x10000).uintBytes(maxBytes: 2) }
        #expect(throws: RLPError.expectedList) { try RLPItem.empty.asList() }
        #expect(throws: RLPError.expectedBytes) { try RLPItem.emptyList.asBytes() }
        #expect(try RLPItem.list([.string("a")]).asList() == [.string("a")])
        #expect(RLPItem.emptyList.stringValue == nil)
        #expect(RLPItem.bytes([0xff]).stringValue == nil)
    }

    // MARK: - Round trips

    @Test(arguments: [1, 2, 3, 42, 0xdead_beef] as [UInt64])
    func randomRoundTrips(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        for _ in 0..<100 {
            let item = randomItem(&rng, depth: 4)
            let encoded = RLP.encode(item)
            #expect(encoded == referenceEncode(item))
            let decoded = try RLP.decode(encoded)
            #expect(decoded == item)
            #expect(RLP.encode(decoded) == encoded)
        }
    }

    @Test(arguments: [7, 8, 9] as [UInt64])
    func everyStrictPrefixIsTruncatedAndEverySuffixIsTrailing(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        for _ in 0..<40 {
            let encoded = RLP.encode(randomItem(&rng, depth: 3))
            // Every cut for small encodings; the first and last 64 plus a random sample for large ones.
            var cuts = Set(0..<min(encoded.count, 64)).union(max(0, encoded.count - 64)..<encoded.count)
            for _ in 0..<64 { cuts.insert(Int.random(in: 0..<encoded.count, using: &rng)) }
            var failures = 0
            for cut in cuts {
                do {
                    _ = try RLP.decode(Array(encoded.prefix(cut)))
                    failures += 1
                } catch {
                    if error != .truncated(offset: 0) { failures += 1 }
                }
            }
            #expect(failures == 0, "\(failures) prefixes of a \(encoded.count)-byte encoding not rejected as truncated")
            expectDecodeError(.trailingBytes(offset: encoded.count), encoded + [0x00])
            expectDecodeError(.trailingBytes(offset: encoded.count), encoded + [0xc0])
        }
    }

    @Test func deepNestingWithinLimitRoundTrips() throws {
        var item: RLPItem = .emptyList
        for _ in 1..<RLP.defaultMaxDepth { item = .list([item]) }
        let encoded = RLP.encode(item)
        #expect(try RLP.decode(encoded) == item)
    }

    // MARK: - Rejections

    @Test func rejectsEmptyAndTruncatedInput() {
        expectDecodeError(.truncated(offset: 0), [])
        expectDecodeError(.truncated(offset: 0), [0x83, 0x64, 0x6f])
        expectDecodeError(.truncated(offset: 0), [0xb8])
        expectDecodeError(.truncated(offset: 0), [0xb9, 0x01])
        expectDecodeError(.truncated(offset: 0), [0xb8, 0x38] + [UInt8](repeating: 0x61, count: 55))
        expectDecodeError(.truncated(offset: 0), [0xc3, 0x80, 0x80])
        expectDecodeError(.truncated(offset: 0), [0xf8])
        expectDecodeError(.truncated(offset: 0), [0xf8, 0x38, 0xc0])
        // A length that fits in Int but exceeds the input.
        expectDecodeError(.truncated(offset: 0), [0xbf, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
    }

    @Test func rejectsTrailingBytes() {
        expectDecodeError(.trailingBytes(offset: 1), [0x80, 0x00])
        expectDecodeError(.trailingBytes(offset: 1), [0xc0, 0xc0])
        expectDecodeError(.trailingBytes(offset: 4), [0x83, 0x64, 0x6f, 0x67, 0x01])
    }

    @Test func rejectsElementLargerThanItsList() {
        // List claims 2 bytes; the string inside claims 3.
        expectDecodeError(.elementExceedsList(offset: 1), [0xc2, 0x83, 0x64, 0x6f, 0x67])
        // Nested list claims more than its parent holds.
        expectDecodeError(.elementExceedsList(offset: 1), [0xc2, 0xc3, 0x80, 0x80, 0x80])
        // Long-form length bytes cut off by the enclosing list.
        expectDecodeError(.elementExceedsList(offset: 1), [0xc1, 0xb8, 0x38])
    }

    @Test func rejectsLongFormForShortPayloads() {
        expectDecodeError(.nonCanonicalSize(offset: 0), [0xb8, 0x05] + Array("hello".utf8))
        expectDecodeError(.nonCanonicalSize(offset: 0), [0xb8, 0x37] + [UInt8](repeating: 0x61, count: 55))
        expectDecodeError(.nonCanonicalSize(offset: 0), [0xf8, 0x03, 0xc0, 0xc0, 0xc0])
        expectDecodeError(.nonCanonicalSize(offset: 1), [0xc3, 0xb8, 0x01, 0x61])
    }

    @Test func rejectsLeadingZeroInLength() {
        expectDecodeError(.leadingZeroInLength(offset: 1), [0xb9, 0x00, 0x38] + [UInt8](repeating: 0x61, count: 56))
        expectDecodeError(.leadingZeroInLength(offset: 1), [0xf9, 0x00, 0x38] + [UInt8](repeating: 0x80, count: 56))
        expectDecodeError(.leadingZeroInLength(offset: 4), [0xc5, 0x80, 0x80, 0xb9, 0x00, 0x38])
        expectDecodeError(.leadingZeroInLength(offset: 1), [0xb8, 0x00])
    }

    @Test func rejectsWrappedSingleByte() {
        expectDecodeError(.nonCanonicalSingleByte(offset: 0), [0x81, 0x00])
        expectDecodeError(.nonCanonicalSingleByte(offset: 0), [0x81, 0x7f])
        expectDecodeError(.nonCanonicalSingleByte(offset: 2), [0xc4, 0x80, 0x81, 0x05, 0x80])
        #expect((try? RLP.decode([0x81, 0x80])) == .bytes([0x80]))
    }

    @Test func rejectsOverflowingLengths() {
        expectDecodeError(.lengthOverflow(offset: 1), [0xbf] + [UInt8](repeating: 0xff, count: 8))
        expectDecodeError(.lengthOverflow(offset: 1), [0xff, 0x80, 0, 0, 0, 0, 0, 0, 0])
        expectDecodeError(.lengthOverflow(offset: 4), [0xcb, 0x80, 0x80, 0xbf] + [UInt8](repeating: 0xff, count: 8))
    }

    @Test func rejectsNestingBeyondLimit() {
        // [[[[]]]] is four lists deep.
        let four: [UInt8] = [0xc3, 0xc2, 0xc1, 0xc0]
        #expect((try? RLP.decode(four, maxDepth: 4)) == [[[[]]]])
        #expect(throws: RLPError.nestingTooDeep(offset: 3)) { try RLP.decode(four, maxDepth: 3) }
        #expect(throws: RLPError.nestingTooDeep(offset: 0)) { try RLP.decode([0xc0], maxDepth: 0) }
        #expect((try? RLP.decode([0x80], maxDepth: 0)) == .empty)
        // A hostile input of 100 000 nested list headers must fail cleanly, not overflow the stack.
        var headers: [[UInt8]] = []
        var payload = 0
        for _ in 0..<100_000 {
            let header = listHeader(payload: payload)
            headers.append(header)
            payload += header.count
        }
        let outermostFirst = Array(headers.reversed())
        let hostile = Array(outermostFirst.joined())
        #expect(hostile.count == payload)
        // The list at depth 1025 starts after the first 1024 headers.
        let offset = outermostFirst.prefix(RLP.defaultMaxDepth).reduce(0) { $0 + $1.count }
        #expect(throws: RLPError.nestingTooDeep(offset: offset)) {
            try RLP.decode(hostile)
        }
    }

    @Test func errorDescriptions() {
        #expect(RLPError.truncated(offset: 12).description == "rlp: truncated input at offset 12")
        #expect(RLPError.trailingBytes(offset: 3).description == "rlp: trailing bytes after the item at offset 3")
        #expect(RLPError.nonCanonicalSize(offset: 0).description.contains("non-canonical size at offset 0"))
        #expect(RLPError.leadingZeroInLength(offset: 1).description.contains("leading zero"))
        #expect(RLPError.nonCanonicalSingleByte(offset: 5).description.contains("offset 5"))
        #expect(RLPError.lengthOverflow(offset: 1).description == "rlp: length at offset 1 overflows")
        #expect(RLPError.nonCanonicalInteger.description == "rlp: non-canonical integer (leading zero byte)")
        for error: RLPError in [
            .truncated(offset: 0), .trailingBytes(offset: 0), .elementExceedsList(offset: 0),
            .nonCanonicalSize(offset: 0), .leadingZeroInLength(offset: 0), .nonCanonicalSingleByte(offset: 0),
            .lengthOverflow(offset: 0), .nestingTooDeep(offset: 0), .expectedBytes, .expectedList,
            .nonCanonicalInteger, .integerOverflow(maxBytes: 8),
        ] {
            #expect(error.description.hasPrefix("rlp: "))
        }
    }
}
