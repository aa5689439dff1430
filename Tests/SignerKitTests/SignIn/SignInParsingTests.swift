import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

@Suite("EIP-4361 messages: parse and build")
struct SignInParsingTests {
    /// The first example of EIP-4361 (implicit scheme).
    static func example() throws -> String { try SignInFixtures.file("eip4361/example-implicit-scheme.txt") }

    /// The example with line `number` (1-based) replaced by `replacement` (which may hold line breaks).
    static func example(line number: Int, _ replacement: String) throws -> String {
        var lines = try example().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[number - 1] = replacement
        return lines.joined(separator: "\n")
    }

    static let exampleAddress = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"

    @Test("the specification's three examples parse into their fields and write back byte for byte")
    func examples() throws {
        let origins: [(String?, String)] = [(nil, "example.com"), (nil, "example.com:3388"), ("https", "example.com")]
        for (name, origin) in zip(SignInFixtures.exampleNames, origins) {
            let text = try SignInFixtures.file("eip4361/\(name)")
            let message = try SignInMessage(parsing: text)
            #expect(message.scheme == origin.0, "\(name)")
            #expect(message.domain == origin.1, "\(name)")
            #expect(message.address == (try Address(Self.exampleAddress)))
            #expect(message.statement == "I accept the ExampleOrg Terms of Service: https://example.com/tos")
            #expect(message.uri == "https://example.com/login")
            #expect(message.chainId == 1)
            #expect(message.nonce == "32891756")
            #expect(message.issuedAt.text == "2021-09-30T16:25:24Z")
            #expect(message.issuedAt.unixSeconds == 1_633_019_124)
            #expect(message.expirationTime == nil && message.notBefore == nil && message.requestId == nil)
            #expect(
                message.resources == [
                    "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
                    "https://example.com/my-web2-claim.json",
                ])
            #expect(message.text == text)
            #expect(message.description == text)
            #expect(message.bytes == Array(text.utf8))
            #expect(try SignInMessage(parsing: message.text) == message)
            #expect(try SignInMessage(bytes: Array(text.utf8)) == message)
        }
    }

    @Test("building from fields gives the specification's example text exactly")
    func buildExample() throws {
        let message = try SignInMessage(
            domain: "example.com", address: Address(Self.exampleAddress),
            statement: "I accept the ExampleOrg Terms of Service: https://example.com/tos",
            uri: "https://example.com/login", chainId: 1, nonce: "32891756",
            issuedAt: RFC3339DateTime("2021-09-30T16:25:24Z"),
            resources: [
                "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
                "https://example.com/my-web2-claim.json",
            ])
        #expect(message.text == (try Self.example()))
        let withScheme = try SignInMessage(
            scheme: "https", domain: message.domain, address: message.address, statement: message.statement,
            uri: message.uri, chainId: message.chainId, nonce: message.nonce, issuedAt: message.issuedAt,
            resources: message.resources)
        #expect(withScheme.text == (try SignInFixtures.file("eip4361/example-explicit-scheme.txt")))
    }

    @Test(
        "the signed fixtures parse and round-trip, every optional field included",
        arguments: try SignInFixtures.signed())
    func signedFixtures(row: SignInFixtures.Signed) throws {
        let message = try SignInMessage(parsing: row.message)
        #expect(message.text == row.message)
        #expect(message.address == row.address)
        #expect(message.personalSignDigest.hex == row.digest)
        #expect(try SignInMessage(parsing: message.text) == message)
    }

    @Test("no statement is two empty lines; an empty statement is three")
    func statementForms() throws {
        let every = try SignInMessage(parsing: SignInFixtures.signed("no-statement-every-optional-field").message)
        #expect(every.statement == nil)
        #expect(every.text.contains("\(every.address.checksummed)\n\n\nURI: "))
        #expect(every.expirationTime?.text == "2026-12-02T10:15:00Z")
        #expect(every.notBefore?.unixSeconds == every.issuedAt.unixSeconds)
        #expect(every.requestId == "req-42:%2Fx@y")
        #expect(every.resources?.count == 2)
        #expect(every.chainId == 8453)
        let empty = try SignInMessage(parsing: SignInFixtures.signed("ip-literal-empty-statement-empty-lists").message)
        #expect(empty.statement == "")
        #expect(empty.requestId == "")
        #expect(empty.resources == [])
        #expect(empty.scheme == "http")
        #expect(empty.domain == "[::1]:8080")
        // A statement may itself read like a field.
        let lookalike = try SignInMessage(parsing: Self.example(line: 4, "URI: https://evil.example"))
        #expect(lookalike.statement == "URI: https://evil.example")
        #expect(lookalike.uri == "https://example.com/login")
    }

    /// A malformed message and what its error must say.
    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let line: Int?
        let field: SignInMessageError.Field
        let fragment: String
        var testDescription: String { name }
    }

    static func malformed() throws -> [Malformed] {
        let e = try example()
        let header = " wants you to sign in with your Ethereum account:"
        func on(_ line: Int, _ replacement: String) throws -> String { try example(line: line, replacement) }
        func m(_ name: String, _ text: String, _ line: Int?, _ field: SignInMessageError.Field, _ fragment: String)
            -> Malformed
        {
            Malformed(name: name, text: text, line: line, field: field, fragment: fragment)
        }
        let lower = Self.exampleAddress.lowercased()
        let badChecksum = "0xc02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"
        return [
            m("empty text", "", 1, .header, "is not \"[scheme://]domain wants you"),
            m(
                "header in other case", try on(1, "example.com wants you to sign in with your ethereum account:"), 1,
                .header, "is not"),
            m("header without domain", try on(1, String(header.dropFirst())), 1, .header, "is not"),
            m("space in the domain", try on(1, "exa mple.com" + header), 1, .domain, "a space"),
            m("scheme without domain", try on(1, "https://" + header), 1, .domain, "empty (a domain is required)"),
            m(
                "scheme starting with a digit", try on(1, "1https://example.com" + header), 1, .scheme,
                "must start with a letter"),
            m("path in the domain", try on(1, "example.com/login" + header), 1, .domain, "character \"/\""),
            m("port with a letter", try on(1, "example.com:80a" + header), 1, .domain, "port: character \"a\""),
            m("bad IPv6 literal", try on(1, "[::1::2]:80" + header), 1, .domain, "not an IPv6 address"),
            m("IDN not in punycode", try on(1, "exämple.com" + header), 1, .domain, "not ASCII"),
            m(
                "address in lower case", try on(2, lower), 2, .address,
                "not in EIP-55 checksum form (expected \(Self.exampleAddress))"),
            m(
                "address with a bad checksum", try on(2, badChecksum), 2, .address,
                "not in EIP-55 checksum form (expected \(Self.exampleAddress))"),
            m(
                "short address", try on(2, String(Self.exampleAddress.dropLast())), 2, .address,
                "is not \"0x\" and 40 hex digits"),
            m(
                "no empty line after the address", try on(3, "I accept"), 3, .message,
                "expected an empty line after the address"),
            m(
                "one empty line without a statement (not the ABNF)",
                e.replacingOccurrences(
                    of: "\n\nI accept the ExampleOrg Terms of Service: https://example.com/tos\n", with: "\n"),
                4, .message, "one empty line before \"URI:\" where EIP-4361 puts two"),
            m("non-ASCII statement", try on(4, "I accept the Terms’ of Service"), 4, .statement, "not ASCII"),
            m("quote in the statement", try on(4, "I accept \"all\""), 4, .statement, "character \"\\\"\""),
            m(
                "statement smuggling a URI line", try on(4, "I accept\nURI: https://evil.example"), 5, .message,
                "expected an empty line after the statement, found \"URI: https://evil.example\""),
            m(
                "no empty line after the statement", try on(5, "more"), 5, .message,
                "expected an empty line after the statement"),
            m("URI without scheme", try on(6, "URI: example.com/login"), 6, .uri, "no scheme"),
            m("URI with a space", try on(6, "URI: https://example.com/log in"), 6, .uri, "a space"),
            m(
                "URI with a bad percent escape", try on(6, "URI: https://example.com/%zz"), 6, .uri,
                "\"%\" not followed by two hex digits"),
            m(
                "URI line in lower case", try on(6, "uri: https://example.com/login"), 6, .uri,
                "expected \"URI: …\", found \"uri: https://example.com/login\""),
            m("version 2", try on(7, "Version: 2"), 7, .version, "only version \"1\""),
            m("hex chain id", try on(8, "Chain ID: 0x1"), 8, .chainId, "character \"x\""),
            m("chain id with a leading zero", try on(8, "Chain ID: 01"), 8, .chainId, "leading zero"),
            m("empty chain id", try on(8, "Chain ID: "), 8, .chainId, "empty"),
            m(
                "chain id over 256 bits", try on(8, "Chain ID: 1" + String(repeating: "0", count: 78)), 8, .chainId,
                "does not fit in 256 bits"),
            m("short nonce", try on(9, "Nonce: 1234567"), 9, .nonce, "7 characters, fewer than the 8 required"),
            m("nonce with a dash", try on(9, "Nonce: abcd-efgh"), 9, .nonce, "character \"-\""),
            m("date with a space", try on(10, "Issued At: 2021-09-30 16:25:24Z"), 10, .issuedAt, "T separator"),
            m(
                "February 29 of 2021", try on(10, "Issued At: 2021-02-29T16:25:24Z"), 10, .issuedAt,
                "day out of range"),
            m("date without offset", try on(10, "Issued At: 2021-09-30T16:25:24"), 10, .issuedAt, "offset"),
            m("hour 24", try on(10, "Issued At: 2021-09-30T24:00:00Z"), 10, .issuedAt, "hour out of range"),
            m(
                "leap second not at 23:59:60 UTC", try on(10, "Issued At: 2021-09-30T16:25:60Z"), 10, .issuedAt,
                "second out of range"),
            m("Unix time", try on(10, "Issued At: 1633019124"), 10, .issuedAt, "not an RFC 3339 date-time"),
            m("no Issued At", e.components(separatedBy: "\nIssued At:")[0], nil, .issuedAt, "missing"),
            m(
                "fields out of order",
                try on(
                    10,
                    "Issued At: 2021-09-30T16:25:24Z\nNot Before: 2021-09-30T16:25:24Z\nExpiration Time: 2021-10-30T16:25:24Z"
                ),
                12, .expirationTime, "out of order or repeated"),
            m("nonce repeated", try on(10, "Issued At: 2021-09-30T16:25:24Z\nNonce: 32891756"), 11, .nonce, "repeated"),
            m(
                "no space after the colon",
                try on(10, "Issued At: 2021-09-30T16:25:24Z\nExpiration Time:2021-10-30T16:25:24Z"),
                11, .expirationTime, "a space after the colon"),
            m("line break at the end", e + "\n", 13, .message, "line break at the end"),
            m("CRLF line ends", e.replacingOccurrences(of: "\n", with: "\r\n"), 1, .header, "carriage return"),
            m("resource without a dash", try on(12, "ipfs://bafy"), 12, .resources, "expected \"- \" and a URI"),
            m("resource that is not a URI", try on(13, "- not a uri"), 13, .resources, "not an RFC 3986 URI"),
            m("field after the resources", e + "\nRequest ID: 1", 14, .resources, "resources are the last lines"),
            m("Resources with text", try on(11, "Resources: a"), 11, .resources, "alone on its line"),
            m("unknown line", try on(11, "Foo: bar"), 11, .message, "unexpected line \"Foo: bar\""),
            m("request id with a space", try on(11, "Request ID: a b\nResources:"), 11, .requestId, "a space"),
            m(
                "message over 64 KiB", try on(4, String(repeating: "a", count: 70_000)), nil, .message,
                "more than the 65536 accepted"),
        ]
    }

    @Test("malformed messages are refused naming the line, the field and the problem", arguments: try malformed())
    func refused(_ bad: Malformed) throws {
        let error = #expect(throws: SignInMessageError.self) { try SignInMessage(parsing: bad.text) }
        #expect(error?.line == bad.line, "\(error.map(String.init(describing:)) ?? "")")
        #expect(error?.field == bad.field, "\(error.map(String.init(describing:)) ?? "")")
        #expect(
            error?.description.contains(bad.fragment) == true,
            "expected \(bad.fragment.debugDescription) in \(error.map(String.init(describing:)) ?? "")")
        let prefix = "SIWE message \(bad.line.map { "line \($0) " } ?? "")(\(bad.field.rawValue)): "
        #expect(error?.description.hasPrefix(prefix) == true, "\(error.map(String.init(describing:)) ?? "")")
    }

    @Test("untrusted text in errors is abbreviated, escaped and has pasted keys redacted")
    func hostileText() throws {
        let key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        let long = try #require(
            #expect(throws: SignInMessageError.self) {
                try SignInMessage(parsing: Self.example(line: 4, String(repeating: "a", count: 5000) + "\u{7}"))
            })
        #expect(long.description.count < 400, "\(long)")
        #expect(long.description.contains("…"))
        #expect(!long.description.contains("\u{7}"))
        let pasted = try #require(
            #expect(throws: SignInMessageError.self) {
                try SignInMessage(parsing: Self.example(line: 9, "Nonce: \(key)-"))
            })
        #expect(!pasted.description.contains(key), "\(pasted)")
        #expect(pasted.description.contains(EchoedText.redactionMarker))
    }

    @Test("the builder refuses what the grammar refuses, naming the field without a line")
    func builderRefuses() throws {
        let address = try Address(Self.exampleAddress)
        let issued = try RFC3339DateTime("2021-09-30T16:25:24Z")
        func build(
            scheme: String? = nil, domain: String = "example.com", statement: String? = nil,
            uri: String = "https://example.com", nonce: String = "32891756", requestId: String? = nil,
            resources: [String]? = nil
        ) throws(SignInMessageError) -> SignInMessage {
            try SignInMessage(
                scheme: scheme, domain: domain, address: address, statement: statement, uri: uri, chainId: 1,
                nonce: nonce, issuedAt: issued, requestId: requestId, resources: resources)
        }
        let cases: [(() throws(SignInMessageError) -> SignInMessage, SignInMessageError.Field)] = [
            ({ () throws(SignInMessageError) in try build(scheme: "ht tp") }, .scheme),
            ({ () throws(SignInMessageError) in try build(domain: "") }, .domain),
            ({ () throws(SignInMessageError) in try build(domain: "example.com\nURI: https://evil") }, .domain),
            ({ () throws(SignInMessageError) in try build(statement: "two\nlines") }, .statement),
            ({ () throws(SignInMessageError) in try build(uri: "/relative") }, .uri),
            ({ () throws(SignInMessageError) in try build(nonce: "short") }, .nonce),
            ({ () throws(SignInMessageError) in try build(requestId: "a/b") }, .requestId),
            ({ () throws(SignInMessageError) in try build(resources: ["ok:x", "not a uri"]) }, .resources),
        ]
        for (make, field) in cases {
            let error = #expect(throws: SignInMessageError.self) { try make() }
            #expect(error?.field == field)
            #expect(error?.line == nil)
        }
        #expect(try build(statement: "", requestId: "", resources: []).text.hasSuffix("Request ID: \nResources:"))
    }

    @Test("URIs and authorities: RFC 3986 forms accepted")
    func uriForms() throws {
        let uris = [
            "https://example.com", "https://user:pass@example.com:8443/a/b;c?q=1&r=%20#frag/?", "urn:isbn:0451450523",
            "did:pkh:eip155:1:0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2", "file:///etc/hosts", "mailto:a@b.c",
            "http://[2001:db8::7]/c=GB?objectClass?one", "http://[v7.fe80::a+en1]/", "http://192.168.0.1:/x",
            "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/", "a:", "http://[::ffff:1.2.3.4]",
        ]
        for uri in uris {
            #expect(throws: Never.self, "\(uri)") { try SignInMessage(parsing: Self.example(line: 6, "URI: " + uri)) }
        }
        let bad = [
            "http://[::1", "http://[1:2:3:4:5:6:7:8:9]/", "http://[::ffff:1.2.3.256]", "http://[::01.2.3.4]",
            "http://ex ample.com", "http://a@b@c", "://x", "h*p://x", "http://x/<tag>", "http://x/\\", "http://x#a#b",
        ]
        for uri in bad {
            #expect(throws: SignInMessageError.self, "\(uri)") {
                try SignInMessage(parsing: Self.example(line: 6, "URI: " + uri))
            }
        }
        for domain in ["user@example.com", "[2001:db8::1]:8080", "127.0.0.1", "localhost:3000", "xn--exmple-cua.com"] {
            let message = try SignInMessage(parsing: Self.example(line: 1, domain + SignInMessage.headerSuffix))
            #expect(message.domain == domain)
        }
    }
}

@Suite("EIP-4361 messages: random round trips")
struct SignInRoundTripTests {
    /// A small deterministic generator, so a failure names a reproducible seed.
    typealias Generator = SplitMix64

    static func text(_ alphabet: String, _ length: ClosedRange<Int>, _ g: inout Generator) -> String {
        let characters = Array(alphabet)
        return String((0..<Int.random(in: length, using: &g)).map { _ in characters.randomElement(using: &g) ?? "a" })
    }

    @Test("messages built from random valid fields parse back to themselves", arguments: [1, 2, 3, 4] as [UInt64])
    func roundTrip(seed: UInt64) throws {
        var g = Generator(seed: seed)
        let statementAlphabet = "abcXYZ019 -._~:/?#[]@!$&'()*+,;="
        let pchar = "abcXYZ019-._~!$&'()*+,;=:@"
        let uris = [
            "https://example.com/login", "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66", "did:pkh:eip155:1:0xabc",
            "http://[::1]:8080/?a=b#c", "ipfs://bafy/", "mailto:a@b.c", "file:///tmp/x", "a:",
        ]
        let domains = ["example.com", "[::1]:8080", "user:pw@host.example:1", "a.b-c_d~e", "%41.example", "127.0.0.1:"]
        for _ in 0..<100 {
            let seconds = Int64.random(in: 0..<4_102_444_800, using: &g)
            func time() throws -> RFC3339DateTime {
                try RFC3339DateTime(
                    Date(timeIntervalSince1970: TimeInterval(seconds) + Double(Int.random(in: 0..<3, using: &g)) * 0.25)
                )
            }
            let message = try SignInMessage(
                scheme: Bool.random(using: &g) ? nil : ["https", "http", "wss", "app+v1.x"].randomElement(using: &g),
                domain: domains.randomElement(using: &g) ?? "example.com",
                address: try #require(Address(bytes: (0..<20).map { _ in UInt8.random(in: 0...255, using: &g) })),
                statement: Bool.random(using: &g) ? nil : Self.text(statementAlphabet, 0...60, &g),
                uri: uris.randomElement(using: &g) ?? "a:", chainId: UInt256(g.next()),
                nonce: Self.text("abcdefXYZ0123456789", 8...24, &g), issuedAt: try time(),
                expirationTime: Bool.random(using: &g) ? nil : try time(),
                notBefore: Bool.random(using: &g) ? nil : try time(),
                requestId: Bool.random(using: &g) ? nil : Self.text(pchar, 0...20, &g) + "%2F",
                resources: Bool.random(using: &g)
                    ? nil : (0..<Int.random(in: 0...3, using: &g)).map { _ in uris.randomElement(using: &g) ?? "a:" })
            let parsed = try SignInMessage(parsing: message.text)
            #expect(parsed == message, "seed \(seed): \(message.text.debugDescription)")
            #expect(parsed.text == message.text)
        }
    }
}
