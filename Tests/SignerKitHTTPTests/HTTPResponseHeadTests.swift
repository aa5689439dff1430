import Testing

@testable import SignerKitHTTP

@Suite("HTTP response heads")
struct HTTPResponseHeadTests {
    private func head(_ lines: [String]) -> HTTPResponseHead {
        var head = HTTPResponseHead()
        for line in lines {
            Array(line.utf8).withUnsafeBytes { head.add(line: $0) }
        }
        return head
    }

    @Test("names are lower-cased tokens, values trimmed of spaces and tabs, the last answer's fields only")
    func ordinaryFields() {
        let read = head([
            "HTTP/1.1 100 Continue\r\n", "X-Early: 1\r\n", "HTTP/1.1 429 Too Many\r\n", "Retry-After: \t 7 \r\n",
            "Location:https://a.example/x\r\n", "\r\n",
        ])
        #expect(read.fields.map(\.name) == ["retry-after", "location"])
        #expect(read.fields.map(\.value) == ["7", "https://a.example/x"])
    }

    // Found by the http-response-head fuzz target: the split was on Characters, so a colon followed by a
    // combining mark was not a separator and a field name kept a colon.
    @Test("a colon followed by a combining mark still separates; non-token names and folded lines are skipped")
    func byteLevelSplit() {
        let read = head([
            "a:\u{0301}b: c\r\n", "Bad Name: 1\r\n", " folded: 2\r\n", "\u{00}x: 3\r\n", ": empty\r\n",
            "caf\u{E9}: 4\r\n",
        ])
        #expect(read.fields.map(\.name) == ["a"])
        #expect(read.fields.first?.value == "\u{0301}b: c")
    }
}
