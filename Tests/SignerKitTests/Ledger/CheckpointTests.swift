import EthereumPrimitives
import SignerKit
import Testing

/// The checkpoint body: the exact text written, and a strict reader whose errors name the line.
@Suite("Checkpoint body")
struct CheckpointTests {
    typealias H = LedgerTestHelpers

    /// The root of the RFC 6962 reference tree of 8 leaves; base64 `XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=`.
    static let root8 = "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"
    static let root8Base64 = "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg="

    static func failure(_ text: String) -> CheckpointError? {
        do {
            _ = try Checkpoint(parsing: text)
            return nil
        } catch { return error }
    }

    @Test("the body is origin, size, base64 root and the time line, each ending in a newline")
    func body() throws {
        let checkpoint = try Checkpoint(
            origin: "signer.example.com/audit", size: 8, root: try H.hash(Self.root8), time: 1_767_225_600)
        #expect(checkpoint.body == "signer.example.com/audit\n8\n\(Self.root8Base64)\ntime 1767225600\n")
        #expect(try Checkpoint(parsing: checkpoint.body) == checkpoint)

        let untimed = try Checkpoint(origin: "signer.example.com/audit", size: 0, root: MerkleHash.emptyRoot)
        #expect(untimed.body == "signer.example.com/audit\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n")
        #expect(try Checkpoint(parsing: untimed.body) == untimed)
        #expect(untimed.time == nil)
    }

    @Test("the C2SP tlog-checkpoint example body reads")
    func specExample() throws {
        let checkpoint = try Checkpoint(
            parsing: "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n")
        #expect(checkpoint.origin == "example.com/behind-the-sofa")
        #expect(checkpoint.size == 20_852_163)
        #expect(checkpoint.root.hex == "0x0ac5186a91863e8e1d90c808014aa89bf5da8e3ee1d9f07630f0378f68f1ab62")
        #expect(checkpoint.time == nil)
    }

    @Test("what the initializer refuses")
    func initializerErrors() throws {
        let root = MerkleHash.emptyRoot
        #expect(throws: CheckpointError.invalidOrigin("")) { try Checkpoint(origin: "", size: 0, root: root) }
        #expect(throws: CheckpointError.invalidOrigin("a\nb")) { try Checkpoint(origin: "a\nb", size: 0, root: root) }
        #expect(throws: CheckpointError.invalidOrigin("a\tb")) { try Checkpoint(origin: "a\tb", size: 0, root: root) }
        #expect(throws: CheckpointError.negativeSize(-1)) { try Checkpoint(origin: "a", size: -1, root: root) }
        #expect(throws: CheckpointError.negativeTime(-5)) {
            try Checkpoint(origin: "a", size: 0, root: root, time: -5)
        }
    }

    @Test("every malformed line is named by its number and field")
    func malformedLines() throws {
        let origin = "signer.example.com/audit"
        let head = "\(origin)\n8\n\(Self.root8Base64)\n"
        #expect(Self.failure("") == .missingFinalNewline)
        #expect(Self.failure("\(origin)\n8\n\(Self.root8Base64)") == .missingFinalNewline)
        #expect(Self.failure("\(origin)\n") == .missingLine(line: 2, field: .size))
        #expect(Self.failure("\(origin)\n8\n") == .missingLine(line: 3, field: .rootHash))
        #expect(Self.failure("\n8\n\(Self.root8Base64)\n") == .malformedLine(line: 1, field: .origin, text: ""))
        #expect(
            Self.failure("a\u{7}b\n8\n\(Self.root8Base64)\n")
                == .malformedLine(line: 1, field: .origin, text: "a\u{7}b"))
        for size in ["", "08", "-1", "+8", " 8", "8 ", "8.0", "0x8", "٨", "9223372036854775808"] {
            #expect(
                Self.failure("\(origin)\n\(size)\n\(Self.root8Base64)\n")
                    == .malformedLine(line: 2, field: .size, text: size), "size \(size)")
        }
        let unpadded = String(Self.root8Base64.dropLast())
        let shortRoot = "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQw=="  // 31 bytes
        let urlAlphabet = "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz-Nw7_RgQyg="
        let nonZeroBits = "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyh="
        let hex = H.plain(try H.hash(Self.root8))
        // The hex root is quoted redacted: 64 hex digits could be a private key (EchoedText).
        #expect(EchoedText.abbreviated(hex) == EchoedText.redactionMarker)
        let roots = [
            "", unpadded, shortRoot, urlAlphabet, nonZeroBits, hex, Self.root8Base64 + "\r", " " + Self.root8Base64,
        ]
        for root in roots {
            #expect(
                Self.failure("\(origin)\n8\n\(root)\n")
                    == .malformedLine(line: 3, field: .rootHash, text: EchoedText.abbreviated(root)), "root \(root)")
        }
        for time in ["time ", "time 01", "time -1", "time  5", "time 5 ", "time 1e9", "time 99999999999999999999"] {
            #expect(Self.failure(head + time + "\n") == .malformedLine(line: 4, field: .time, text: time), "\(time)")
        }
        for line in ["", "Time 5", "time", "timestamp 5", "— signer.example.com/audit AAAA"] {
            #expect(Self.failure(head + line + "\n") == .malformedLine(line: 4, field: .extension, text: line))
        }
        #expect(Self.failure(head + "time 5\ntime 6\n") == .malformedLine(line: 5, field: .extension, text: "time 6"))
        #expect(Self.failure(head + "time 5\n\n") == .malformedLine(line: 5, field: .extension, text: ""))
    }

    @Test("a hostile line is quoted abbreviated, and the message names the line")
    func hostileLine() throws {
        let digits = String(repeating: "7", count: 10_000)
        let error = try #require(Self.failure("o\n\(digits)\n\(Self.root8Base64)\n"))
        guard case .malformedLine(2, .size, let text) = error else {
            Issue.record("expected a malformed size line, got \(error)")
            return
        }
        #expect(text == EchoedText.abbreviated(digits))
        #expect(text.count <= EchoedText.limit + 1)
        #expect(error.description.hasPrefix("checkpoint line 2 (tree size) must be a decimal number"))
        #expect(error.description.count < 200)
    }
}
