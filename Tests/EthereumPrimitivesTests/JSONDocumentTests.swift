import Foundation
import SignerKitTestSupport
import Testing

@testable import EthereumPrimitives

@Suite("JSON parser: accepted documents")
struct JSONAcceptTests {
    @Test(
        "scalars, containers and whitespace",
        arguments: [
            ("null", JSONValue.null), ("true", .bool(true)), (" false ", .bool(false)), ("0", .number("0")),
            ("-0", .number("-0")), ("-12.5e+3", .number("-12.5e+3")), ("1E-7", .number("1E-7")), ("\"\"", .string("")),
            ("[]", .array([])), ("{}", .object(JSONObject())),
            ("\t[ 1 ,\r\n2 ]\n", .array([.number("1"), .number("2")])),
            (
                "{\"a\":{\"b\":[null,{}]},\"c\":\"d\"}",
                .object(
                    JSONObject(members: [
                        .init(
                            key: "a",
                            value: .object(
                                JSONObject(members: [.init(key: "b", value: .array([.null, .object(JSONObject())]))]))),
                        .init(key: "c", value: .string("d")),
                    ]))
            ),
        ])
    func accepts(text: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test(
        "escapes are decoded",
        arguments: [
            (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"), (#""\u0041\u00e9\u20AC""#, "Aé€"),
            (#""\uD83D\uDE00 x""#, "😀 x"), (#""plain then \n""#, "plain then \n"), ("\"raw é€😀\"", "raw é€😀"),
        ])
    func escapes(text: String, expected: String) throws {
        #expect(try JSONValue(parsing: text) == .string(expected))
        let document = try JSONDocument(parsing: "{\"k\":\(text)}")
        #expect(document.root["k"]?.stringValue == expected)
    }

    @Test("nesting up to 512 levels is accepted, 513 refused")
    func depth() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONDocument(parsing: ok) }
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: JSONParseError.self) { try JSONDocument(parsing: deep) }
    }

    @Test("the tape: kinds, counts, siblings and member lookup")
    func tape() throws {
        let document = try JSONDocument(parsing: #"{"a": [1, {"x": true}, "s"], "b": null, "c\u0031": "v"}"#)
        #expect(document.kind(at: 0) == .object)
        #expect(document.count(at: 0) == 3)
        let a = try #require(document.root["a"])
        #expect(a.kind == .array && a.count == 3)
        #expect(a.elements.map(\.kind) == [.number, .object, .string])
        #expect(document.root["b"]?.kind == .null)
        #expect(document.root["c1"]?.stringValue == "v")
        #expect(document.root["missing"] == nil)
        let afterA = document.next(after: a.index)
        #expect(document.node(at: afterA).stringValue == "b")
    }
}

@Suite("JSON parser: refused documents")
struct JSONRejectTests {
    @Test(
        "malformed text is refused with the offset of the problem",
        arguments: [
            ("", 0), ("   ", 3), ("{\"a\":1,}", 7), ("[1,]", 3), ("[1 2]", 3), ("{\"a\" 1}", 5), ("{a:1}", 1),
            ("{'a':1}", 1),
            ("01", 1), ("1.", 0), (".5", 0), ("-", 0), ("+1", 0), ("1e", 0), ("tru", 0), ("nul", 0), ("[1]x", 3),
            ("\"abc", 0), ("[1", 2), ("{\"a\":1", 6), ("\"a\u{1}b\"", 2), (#""\x""#, 1), (#""\u12G4""#, 5),
            (#""\uD800""#, 7), (#""\uDC00""#, 7), (#""\uD800\u0041""#, 13), ("{\"a\":1,\"a\":2}", 7),
            (#"{"a":1,"\u0061":2}"#, 7), ("[1]]", 3), ("NaN", 0), ("[-]", 1),
        ])
    func refuses(text: String, offset: Int) {
        #expect {
            try JSONDocument(parsing: text)
        } throws: { error in
            (error as? JSONParseError)?.offset == offset
        }
    }

    @Test(
        "invalid UTF-8 is refused",
        arguments: [
            [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22],
            [0x22, 0x80, 0x22], [0x22, 0xFF, 0x22], [0x22, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xC3, 0x22],
        ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONDocument(bytes: bytes) }
    }

    @Test("duplicate keys are refused at every depth and position")
    func duplicates() {
        for text in [#"{"k":1,"a":2,"k":3}"#, #"[{"x":{"y":1,"y":2}}]"#, #"{"long key name":1,"long key name":1}"#] {
            #expect(throws: JSONParseError.self) { try JSONDocument(parsing: text) }
        }
        #expect(throws: Never.self) { try JSONDocument(parsing: #"{"k":{"k":1},"a":{"k":2}}"#) }
    }

    @Test("keys sharing a long prefix, many keys, and keys of nested objects are told apart")
    func manyKeys() throws {
        #expect(throws: Never.self) {
            try JSONDocument(parsing: #"{"prefix12345a":1,"prefix12345b":2,"prefix1234":3}"#)
        }
        #expect(throws: JSONParseError.self) {
            try JSONDocument(parsing: #"{"prefix12345a":1,"prefix12345b":2,"prefix12345a":3}"#)
        }
        // More keys open at once than the parser's first key table holds: nested objects 3 deep, 150 keys each.
        func object(depth: Int, duplicateLast: Bool) -> String {
            var members = (0..<150).map { "\"key\($0)\":\($0)" }
            if depth > 0 {
                members.insert("\"child\":" + object(depth: depth - 1, duplicateLast: duplicateLast), at: 75)
            }
            if duplicateLast && depth == 0 { members.append("\"key7\":0") }
            return "{" + members.joined(separator: ",") + "}"
        }
        let document = try JSONDocument(parsing: object(depth: 2, duplicateLast: false))
        #expect(document.root.count == 151)
        #expect(document.root["child"]?["child"]?["key149"]?.numberText == "149")
        #expect(throws: JSONParseError.self) { try JSONDocument(parsing: object(depth: 2, duplicateLast: true)) }
    }

    /// An object of `keys`, each member's value its index; `prefix` goes before the first key.
    static func object(_ keys: [String], prefix: String = "") -> String {
        "{" + prefix + keys.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
    }

    @Test(
        "large objects: duplicates past the linear check are found at every position",
        arguments: [15, 16, 17, 18, 40, 1_000])
    func largeObjectDuplicates(size: Int) throws {
        let keys = (0..<size).map { "key\($0)" }
        let document = try JSONDocument(parsing: Self.object(keys))
        #expect(document.root.count == size)
        #expect(document.root["key\(size - 1)"]?.numberText == "\(size - 1)")
        for duplicate in Set([0, size / 2, size - 1]) {
            let text = Self.object(keys + ["key\(duplicate)"])
            do {
                _ = try JSONDocument(parsing: text)
                Issue.record("duplicate key\(duplicate) of \(size) accepted")
            } catch {
                #expect(error.reason == "duplicate key \"key\(duplicate)\"")
                // The offset is the duplicate key's opening quote.
                #expect(error.offset == text.utf8.count - "\"key\(duplicate)\":\(size)}".utf8.count)
            }
        }
    }

    @Test("large objects compare keys after unescaping, and keep nested and sibling objects apart")
    func largeObjectKeySets() throws {
        let keys = (0..<30).map { "k\($0)" }
        // An escaped spelling of an earlier key, and a plain spelling of an earlier escaped key.
        #expect(throws: JSONParseError.self) { try JSONDocument(parsing: Self.object(keys + ["\\u006b3"])) }
        #expect(throws: JSONParseError.self) {
            try JSONDocument(parsing: Self.object(keys + ["A"], prefix: #""\u0041":-1,"#))
        }
        // The same keys in a parent, its children and their siblings are fine …
        let child = Self.object(keys)
        let parent = "{" + keys.map { "\"\($0)\":\(child)" }.joined(separator: ",") + "}"
        let document = try JSONDocument(parsing: "[\(parent),\(parent)]")
        let second = try #require(Array(document.root.elements).last)
        #expect(second["k29"]?["k29"]?.numberText == "29")
        // … and a duplicate deep inside is still found, after the parent's key set exists.
        let badChild = Self.object(keys + ["k0"])
        let badParent = "{" + keys.map { "\"\($0)\":\($0 == "k20" ? badChild : child)" }.joined(separator: ",") + "}"
        #expect(throws: JSONParseError.self) { try JSONDocument(parsing: badParent) }
    }

    @Test("an object of 100,000 keys parses, and its duplicate is refused")
    func hugeObject() throws {
        let keys = (0..<100_000).map { "member\($0)" }
        #expect(try JSONDocument(parsing: Self.object(keys)).root.count == 100_000)
        #expect(throws: JSONParseError.self) { try JSONDocument(parsing: Self.object(keys + ["member99998"])) }
    }
}

@Suite("JSON parser: generated documents")
struct JSONGeneratedTests {
    @Test("random documents in random layouts parse back to the value that produced them", arguments: 0..<8)
    func roundTrip(seed: UInt64) throws {
        var random = JSONGenerator(seed: seed &+ 0x5EED)
        for _ in 0..<60 {
            let value = random.value(depth: 0)
            let text = random.render(value)
            #expect(try JSONValue(parsing: text) == value, "\(text)")
        }
    }

    @Test("mutated documents: never a crash, and whatever is accepted Foundation accepts too", arguments: 0..<4)
    func mutations(seed: UInt64) {
        var random = JSONGenerator(seed: seed &+ 0xBAD)
        // No exponent letters: Foundation refuses numbers beyond Double's range, which JSON allows.
        let alphabet = Array(#"{}[]:,"\ -+.0123456789abtfnru"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xED, 0xF0]
        for _ in 0..<250 {
            var bytes = Array(random.render(random.value(depth: 0)).utf8)
            for _ in 0..<(1 + random.below(3)) {
                let position = random.below(bytes.count + 1)
                switch random.below(3) {
                case 0 where !bytes.isEmpty && position < bytes.count: bytes.remove(at: position)
                case 1 where position < bytes.count: bytes[position] = alphabet[random.below(alphabet.count)]
                default: bytes.insert(alphabet[random.below(alphabet.count)], at: position)
                }
            }
            guard let ours = try? JSONValue(parsing: bytes) else { continue }
            let foundation = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            #expect(
                foundation != nil,
                "accepted by SignerKit, refused by Foundation: \(String(reflecting: String(decoding: bytes, as: UTF8.self)))"
            )
            // Parsing is deterministic: the same bytes give the same value.
            #expect((try? JSONValue(parsing: bytes)) == ours)
        }
    }
}

/// Deterministic generator of JSON values and their textual layouts.
struct JSONGenerator {
    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { random.next() }

    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }

    mutating func string() -> String {
        let pieces = [
            "a", "Z", "_", " ", "é", "€", "😀", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{1F}", "key", "0x12", "name",
        ]
        return (0..<below(12)).map { _ in pieces[below(pieces.count)] }.joined()
    }

    mutating func number() -> String {
        var text = below(2) == 0 ? "" : "-"
        text += below(3) == 0 ? "0" : String(1 + below(9)) + (0..<below(20)).map { _ in String(below(10)) }.joined()
        if below(3) == 0 { text += "." + (0..<(1 + below(5))).map { _ in String(below(10)) }.joined() }
        if below(4) == 0 { text += ["e", "E"][below(2)] + ["", "+", "-"][below(3)] + String(below(10)) }
        return text
    }

    mutating func value(depth: Int) -> JSONValue {
        let choice = depth > 4 ? below(4) : below(7)
        switch choice {
        case 0: return .null
        case 1: return .bool(below(2) == 0)
        case 2: return .number(number())
        case 3: return .string(string())
        case 4, 5:
            var members: [JSONObject.Member] = []
            var used = Set<String>()
            for _ in 0..<below(6) {
                let key = string()
                guard used.insert(key).inserted else { continue }
                members.append(.init(key: key, value: value(depth: depth + 1)))
            }
            return .object(JSONObject(members: members))
        default: return .array((0..<below(6)).map { _ in value(depth: depth + 1) })
        }
    }

    mutating func space() -> String { ["", "", " ", "\n  ", "\t", "\r\n", "        "][below(7)] }

    mutating func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += below(2) == 0 ? "\\\\" : "\\u005C"
            case "\n": out += "\\n"
            case "\t": out += below(2) == 0 ? "\\t" : "\\u0009"
            case "/": out += below(2) == 0 ? "/" : "\\/"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04X", scalar.value)
            case _ where scalar.value > 0xFFFF && below(2) == 0:
                let v = scalar.value - 0x10000
                out += String(format: "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
            case _ where below(8) == 0 && scalar.value <= 0xFFFF: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    mutating func render(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return quoted(text)
        case .array(let items):
            return "[" + space() + items.map { render($0) }.joined(separator: space() + "," + space()) + space() + "]"
        case .object(let object):
            let members = object.members.map { quoted($0.key) + space() + ":" + space() + render($0.value) }
            return "{" + space() + members.joined(separator: space() + "," + space()) + space() + "}"
        }
    }
}

@Suite("JSON parser: size limit")
struct JSONSizeLimitTests {
    /// A document over 1 GiB is refused before a byte is read or copied: its unescaped strings
    /// would be addressed past 32-bit offsets (a 1.5 GB array of escaped strings trapped before).
    /// The parser is given a tiny buffer that claims that length; the check must fire first.
    @Test func overOneGiBIsRefusedUpFront() throws {
        let buffer = [UInt8](repeating: 0, count: 64)
        for claimed in [JSONTapeBuilder.maximumInputLength + 1, Int(Int32.max), Int(Int32.max) + 10] {
            try buffer.withUnsafeBufferPointer { bytes in
                let input = UnsafeBufferPointer(start: try #require(bytes.baseAddress), count: claimed)
                #expect(throws: JSONParseError(offset: 0, reason: "document too large (more than 1073741823 bytes)")) {
                    _ = try JSONDocument.parse(input)
                }
            }
        }
        #expect(JSONTapeBuilder.maximumInputLength * 2 < Int(Int32.max))
    }
}
