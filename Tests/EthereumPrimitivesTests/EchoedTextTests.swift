import EthereumPrimitives
import Testing

/// Error messages quote untrusted text abbreviated, so hostile input cannot blow up a message or a
/// log line.
@Suite struct EchoedTextTests {
    @Test func shortTextIsQuotedWhole() {
        #expect(EchoedText.abbreviated("") == "")
        #expect(EchoedText.abbreviated("0x12") == "0x12")
        let eighty = String(repeating: "z", count: 80)
        #expect(EchoedText.abbreviated(eighty) == eighty)
        // 80 characters of several bytes each are still 80 characters.
        let wide = String(repeating: "é", count: 80)
        #expect(EchoedText.abbreviated(wide) == wide)
    }

    @Test func longTextKeepsItsStart() {
        let text = "0x" + String(repeating: "z9", count: 500_000)
        let shown = EchoedText.abbreviated(text)
        #expect(shown == "0x" + String(repeating: "z9", count: 39) + "…")
        #expect(EchoedText.abbreviated(String(repeating: "é", count: 81)) == String(repeating: "é", count: 80) + "…")
    }

    /// Review finding (fuzzing's bounded-description check): the limit counted Characters, and one Character
    /// can hold any number of combining marks, so 80 "characters" could be megabytes.
    @Test func combiningMarksCountTowardsTheLimit() {
        let cluster = "e" + String(repeating: "\u{301}", count: 100_000)
        #expect(cluster.count == 1)
        let shown = EchoedText.abbreviated(cluster)
        #expect(shown.unicodeScalars.count == EchoedText.limit + 1)
        #expect(shown.utf8.count <= 4 * EchoedText.limit + 3)
        #expect(EchoedText.abbreviated(String(repeating: "ab ", count: 1000), limit: 6) == "ab ab …")
        let key = "0x" + String(repeating: "1", count: 64)
        #expect(EchoedText.abbreviated(key, limit: 400) == "0x" + EchoedText.redactionMarker)
    }

    @Test("errors about huge input stay short")
    func errorsStayShort() {
        let digits = String(repeating: "9", count: 100_000)
        #expect(throws: IntegerTextError.self) { try UInt256(text: digits) }
        do {
            _ = try UInt256(text: digits)
        } catch {
            #expect(error.description.count < 200)
            // 100,000 digits are a hex run: they could hold a pasted key, so they are redacted.
            #expect(error.description.hasPrefix("value \(EchoedText.redactionMarker)"))
        }
        do {
            _ = try UInt256(text: String(repeating: "9", count: 63) + "_" + digits)
        } catch {
            #expect(error.description.count < 200)
            #expect(error.description.hasPrefix("not an integer: 999"))
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

    /// A private key (64 hex digits), here the well-known test key 0x4c08…, as a user might paste it.
    static let key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

    @Test("runs of 64 or more hex digits are redacted wherever they are")
    func hexRunsAreRedacted() {
        let key = Self.key
        let marker = EchoedText.redactionMarker
        #expect(EchoedText.abbreviated(key) == marker)
        #expect(EchoedText.abbreviated("0x" + key) == "0x" + marker)
        #expect(EchoedText.abbreviated("0X" + key.uppercased()) == "0X" + marker)
        #expect(EchoedText.abbreviated("eip155:8453:0x" + key) == "eip155:8453:0x" + marker)
        #expect(
            EchoedText.abbreviated("https://pay.example/?pid=pay_1&k=\(key)#x")
                == "https://pay.example/?pid=pay_1&k=\(marker)#x")
        // A key with more digits around it, two keys, a key past the cut.
        #expect(EchoedText.abbreviated("0x00" + key + "ff") == "0x" + marker)
        #expect(EchoedText.abbreviated(key + "/" + key) == marker + "/" + marker)
        let late = EchoedText.abbreviated(String(repeating: "-", count: 70) + key)
        #expect(late == String(repeating: "-", count: 70) + String(marker.prefix(10)) + "…")
        #expect(!late.contains(String(key.prefix(8))))
        // 63 digits are not a key (an address is 40, a 32-byte word is 64: redacted too).
        let short = String(key.prefix(63))
        #expect(EchoedText.abbreviated(short) == short)
        #expect(EchoedText.containsRedactableRun("x" + key))
        #expect(!EchoedText.containsRedactableRun(short + "x" + short))
    }

    @Test("a megabyte of text is cut at 80 characters whatever it holds")
    func megabyteInputs() {
        for unit in ["a", "é", "0", "0x", "\u{1F600}", "g" + Self.key] {
            let text = String(repeating: unit, count: 1_000_000 / unit.utf8.count)
            let shown = EchoedText.abbreviated(text)
            #expect(shown.count <= EchoedText.limit + 1, "\(unit)")
            #expect(!shown.contains(String(Self.key.prefix(16))))
        }
    }
}
