import EthereumPrimitives
import Testing

/// JSON text of strings: quotes, backslashes and control characters escaped, everything else copied.
@Suite struct JSONStringEscapeTests {
    @Test("each escape, at the start, the middle and the end of a string")
    func escapes() {
        #expect(JSONValue.quoted("") == #""""#)
        #expect(JSONValue.quoted("plain é 🙂") == "\"plain é 🙂\"")
        #expect(JSONValue.quoted("\"a\\b\nc\rd\te\u{1}\u{1F}") == #""\"a\\b\nc\rd\te\u0001\u001f""#)
        #expect(JSONValue.quoted("x\"") == #""x\"""#)
        #expect(JSONValue.quoted("\u{0}\u{0}") == #""\u0000\u0000""#)
    }

    @Test("random strings of ASCII, controls and multibyte characters come back unchanged")
    func roundTrip() throws {
        let alphabet = Array("ab\"\\/\n\r\t\u{0}\u{8}\u{1B}\u{7F}é€🙂 ")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement()! })
            let serialized = JSONValue.object(JSONObject(members: [.init(key: text, value: .string(text))])).serialized
            #expect(
                try JSONValue(parsing: serialized)
                    == .object(JSONObject(members: [.init(key: text, value: .string(text))])), "\(serialized)")
        }
    }
}
