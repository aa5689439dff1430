import EthereumPrimitives

/// JSON documents: the two parsers (tree and tape) agree, and serialising is a fixed point.
enum JSONTargets {
    static let json = FuzzTarget(
        name: "json",
        summary: "JSONValue and JSONDocument parse the same inputs to the same value; serialized text re-parses equal"
    ) { bytes in
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue(parsing: bytes)
        } catch {
            FuzzCheck.boundedDescription(error)
            FuzzCheck.expect(error.offset >= 0 && error.offset <= bytes.count, "offset \(error.offset) out of range")
            let tape = try? JSONDocument(bytes: bytes)
            FuzzCheck.expect(tape == nil, "JSONDocument accepts what JSONValue refuses: \(error)")
            return
        }
        guard let document = try? JSONDocument(bytes: bytes) else {
            FuzzCheck.expect(false, "JSONDocument refuses what JSONValue accepts")
            return
        }
        FuzzCheck.expect(document.root.value == value, "the two parsers disagree")
        let text = value.serialized
        guard let again = try? JSONValue(parsing: text) else {
            FuzzCheck.expect(false, "serialized text does not parse: \(text.prefix(200))")
            return
        }
        FuzzCheck.expect(again == value, "serialized text parses to another value")
        FuzzCheck.expect(again.serialized == text, "serialising is not a fixed point")
    }
}
