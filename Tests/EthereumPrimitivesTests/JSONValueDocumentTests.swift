import EthereumPrimitives
import Testing

/// `JSONValue.document` writes text and tape in one walk: the same document parsing `serialized` gives.
@Suite struct JSONValueDocumentTests {
    static let values: [JSONValue] = [
        .null, true, false, 0, .number("-12.5e+3"), "", "plain", "quote \" backslash \\ newline \n tab \t \u{1}",
        "日本 🦊", [], [:], [1, [2, [3, []]], ["a": [:]]],
        ["types": ["Mail": [["name": "from", "type": "address"]]], "escaped \"key\"": "x\\y", "n": .number("1E9")],
        .array((0..<40).map { .number(String($0)) }),
        .object(JSONObject(members: (0..<20).map { JSONObject.Member(key: "k\($0)", value: .string("v\($0)")) })),
    ]

    @Test(arguments: values)
    func sameDocumentAsParsingTheText(value: JSONValue) throws {
        let built = value.document
        let parsed = try JSONDocument(parsing: value.serialized)
        #expect(built.root.value == value)
        built.root.withSourceUTF8 { built in
            parsed.root.withSourceUTF8 { parsed in #expect(Array(built) == Array(parsed)) }
        }
        let end = parsed.next(after: 0)
        #expect(built.next(after: 0) == end)
        for index in 0..<end {
            #expect(built.kind(at: index) == parsed.kind(at: index))
            #expect(built.count(at: index) == parsed.count(at: index))
            #expect(built.next(after: index) == parsed.next(after: index))
            #expect(built.bool(at: index) == parsed.bool(at: index))
            #expect(Array(built.unsafeUTF8(at: index)) == Array(parsed.unsafeUTF8(at: index)))
            #expect(built.node(at: index).sourceLength == parsed.node(at: index).sourceLength)
        }
    }

    /// What the parser refuses is the document `null`, as before.
    @Test func valuesTheParserRefusesAreNull() {
        var deep: JSONValue = []
        for _ in 0..<600 { deep = [deep] }
        let repeated = JSONValue.object(
            JSONObject(members: [JSONObject.Member(key: "a", value: 1), JSONObject.Member(key: "a", value: 2)]))
        for value in [JSONValue.number("01"), .number("1."), .number("abc"), [.number("-")], repeated, deep] {
            #expect(value.document.root.kind == .null)
        }
    }
}
