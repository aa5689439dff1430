import EthereumPrimitives
import Testing

/// Error messages quote untrusted text abbreviated, so hostile input cannot blow up a message or a
/// log line.
@Suite struct EchoedTextTests {
    @Test func shortTextIsQuotedWhole() {
        #expect(EchoedText.abbreviated("") == "")
        #expect(EchoedText.abbreviated("0x12") == "0x12")
        let eighty = String(repeating: "a", count: 80)
        #expect(EchoedText.abbreviated(eighty) == eighty)
        // 80 characters of several bytes each are still 80 characters.
        let wide = String(repeating: "é", count: 80)
        #expect(EchoedText.abbreviated(wide) == wide)
    }

    @Test func longTextKeepsItsStart() {
        let text = "0x" + String(repeating: "9", count: 1_000_000)
        let shown = EchoedText.abbreviated(text)
        #expect(shown == "0x" + String(repeating: "9", count: 78) + "…")
        #expect(EchoedText.abbreviated(String(repeating: "é", count: 81)) == String(repeating: "é", count: 80) + "…")
    }

    @Test("errors about huge input stay short")
    func errorsStayShort() {
        let digits = String(repeating: "9", count: 100_000)
        #expect(throws: IntegerTextError.self) { try UInt256(text: digits) }
        do {
            _ = try UInt256(text: digits)
        } catch {
            #expect(error.description.count < 200)
            #expect(error.description.hasPrefix("value 999"))
        }
        #expect(AddressError.malformed(digits).description.count < 200)
        #expect(CAIPError.malformedChainID(digits).description.count < 200)
        let key = String(repeating: "k", count: 100_000)
        do {
            _ = try JSONDocument(parsing: "{\"\(key)\":1,\"\(key)\":2}")
            Issue.record("duplicate accepted")
        } catch {
            #expect(error.reason.count < 200)
            #expect(error.reason.hasPrefix("duplicate key \"kkk"))
        }
    }
}
