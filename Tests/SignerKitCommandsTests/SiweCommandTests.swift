import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

@Suite("siwe verify / sign")
struct SiweCommandTests {
    /// A row of siwe_signed.jsonl (signed by eth-account; scripts/gen_siwe_fixtures.py).
    struct Row: Sendable, CustomTestStringConvertible {
        let name, privateKey, address, message, signature: String
        var testDescription: String { name }
    }

    static func rows() throws -> [Row] {
        try Fixtures.rows("siwe_signed.jsonl").map { row in
            return Row(
                name: try row.vectorString("name"), privateKey: try row.vectorString("privateKey"),
                address: try row.vectorString("address"),
                message: try row.vectorString("message"), signature: try row.vectorString("signature"))
        }
    }

    static func row(_ name: String) throws -> Row {
        guard let row = try rows().first(where: { $0.name == name }) else {
            throw FixtureError(description: "no row \(name)")
        }
        return row
    }

    /// Inside the validity window of every fixture.
    static let inWindow = "2026-12-02T10:05:00Z"

    @Test("verify prints the EIP-55 signer and exits 0; sign makes eth-account's signature", arguments: try rows())
    func verifyAndSign(row: Row) async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("message.txt", row.message)
        expectSuccess(
            await signerkit(
                ["siwe", "verify", "--message-file", file, "--signature", row.signature, "--at", Self.inWindow]),
            [row.address])
        // From stdin, and with one final line break as editors write it.
        expectSuccess(
            await signerkit(
                ["siwe", "verify", "--message-file", "-", "--signature", row.signature, "--at", Self.inWindow],
                stdin: row.message + "\n"),
            [row.address])
        let key = try directory.write("key", row.privateKey)
        expectSuccess(await signerkit(["siwe", "sign", "--message-file", file, "--key-file", key]), [row.signature])
    }

    @Test("--domain, --uri, --chain-id, --nonce and --at: a failed check exits 65 naming it")
    func failedChecks() async throws {
        let row = try Self.row("no-statement-every-optional-field")
        let directory = try TemporaryDirectory()
        let file = try directory.write("message.txt", row.message)
        let base = ["siwe", "verify", "--message-file", file, "--signature", row.signature]
        expectSuccess(
            await signerkit(
                base + [
                    "--domain", "https://app.example.org", "--uri", "https://app.example.org/session?from=wallet#top",
                    "--chain-id", "8453", "--nonce", "Zx8pQ2rTw4LmN9aB", "--at", Self.inWindow,
                ]),
            [row.address])
        let cases: [([String], String)] = [
            (
                ["--domain", "evil.example", "--at", Self.inWindow],
                "error: SIWE check domain failed: the message is for \"app.example.org\", not \"evil.example\""
            ),
            (["--uri", "https://evil.example", "--at", Self.inWindow], "SIWE check uri failed"),
            (
                ["--chain-id", "1", "--at", Self.inWindow],
                "SIWE check chain-id failed: the message's Chain ID is 8453, not 1"
            ),
            (["--nonce", "other123", "--at", Self.inWindow], "SIWE check nonce failed"),
            (
                ["--at", "2026-12-02T09:00:00Z"],
                "SIWE check not-before failed: the message is valid from 2026-12-02T11:00:00+01:00"
            ),
            (["--at", "2026-12-02T10:15:00Z"], "SIWE check expiration-time failed"),
        ]
        for (flags, fragment) in cases {
            expectInvalid(await signerkit(base + flags), fragment)
        }
        // Without --at the window is judged now: a message that expired in 2021, signed here with the fixture key.
        let expired = try directory.write(
            "expired.txt",
            row.message.replacingOccurrences(
                of: "Expiration Time: 2026-12-02T10:15:00Z\nNot Before: 2026-12-02T11:00:00+01:00",
                with: "Expiration Time: 2021-10-01T00:00:00Z"))
        let key = try directory.write("key", row.privateKey)
        let signed = await signerkit(["siwe", "sign", "--message-file", expired, "--key-file", key])
        #expect(signed.status == 0, "\(signed)")
        let signature = try #require(signed.stdoutLines.first)
        expectInvalid(
            await signerkit(["siwe", "verify", "--message-file", expired, "--signature", signature]),
            "SIWE check expiration-time failed: the message expired at 2021-10-01T00:00:00Z, before 20")
        expectSuccess(
            await signerkit([
                "siwe", "verify", "--message-file", expired, "--signature", signature, "--at", "2021-09-30T23:59:59Z",
            ]),
            [row.address])
        let other = try Self.row("eip-example-implicit-scheme")
        expectInvalid(
            await signerkit(
                ["siwe", "verify", "--message-file", file, "--signature", other.signature, "--at", Self.inWindow]),
            "SIWE check signature failed: signature is by 0x")
    }

    @Test("malformed messages and arguments exit 65 with one line naming the problem")
    func invalidInput() async throws {
        let row = try Self.row("eip-example-implicit-scheme")
        let directory = try TemporaryDirectory()
        let good = try directory.write("message.txt", row.message)
        let lowercase = try directory.write(
            "lower.txt", row.message.replacingOccurrences(of: row.address, with: row.address.lowercased()))
        let oneBlank = try directory.write(
            "one-blank.txt",
            row.message.replacingOccurrences(
                of: "\n\nI accept the ExampleOrg Terms of Service: https://example.com/tos\n", with: "\n"))
        let verify = ["siwe", "verify", "--signature", row.signature, "--at", Self.inWindow]
        expectInvalid(
            await signerkit(verify + ["--message-file", lowercase]),
            "lower.txt: SIWE message line 2 (address): ", "not in EIP-55 checksum form (expected \(row.address))")
        expectInvalid(
            await signerkit(verify + ["--message-file", oneBlank]),
            "SIWE message line 4 (message): one empty line before \"URI:\" where EIP-4361 puts two")
        expectInvalid(
            await signerkit(verify + ["--message-file", "-"], stdin: row.message + "\n\n"),
            "stdin: SIWE message line 13 (message): line break at the end")
        expectInvalid(
            await signerkit(verify + ["--message-file", directory.path("missing.txt")]), "missing.txt: no such file")
        expectInvalid(await signerkit(["siwe", "verify", "--signature", row.signature]), "missing --message-file")
        expectInvalid(await signerkit(["siwe", "verify", "--message-file", good]), "missing --signature")
        expectInvalid(
            await signerkit(["siwe", "verify", "--message-file", good, "--signature", "0x12"]),
            "--signature: signature must be 65 bytes")
        expectInvalid(
            await signerkit([
                "siwe", "verify", "--message-file", good, "--signature", row.signature, "--at", "yesterday",
            ]),
            "--at: yesterday is not an RFC 3339 date-time")
        expectInvalid(
            await signerkit(verify + ["--message-file", good, "--chain-id", "0x1"]), "--chain-id: expected a decimal")
        expectInvalid(await signerkit(["siwe", "frobnicate"]), "frobnicate")
        // sign refuses a message for another account and names both.
        let otherKey = try directory.write("other-key", try Self.row("no-statement-every-optional-field").privateKey)
        expectInvalid(
            await signerkit(["siwe", "sign", "--message-file", good, "--key-file", otherKey]),
            "the message signs in \(row.address), not the key's account 0x63FaC9201494f0bd17B9892B9fae4d52fe3BD377")
        expectInvalid(await signerkit(["siwe", "sign", "--message-file", good]), "--key-file")
    }

    @Test("sign --policy with signInOrigins: the bound origin signs, a phishing sign-in exits 65 naming the policy")
    func domainBindingPolicy() async throws {
        let row = try Self.row("eip-example-implicit-scheme")
        let directory = try TemporaryDirectory()
        let params = JSONValue.array([.string(Hex.encode(Array(row.message.utf8))), .string(row.address)])
        let action = JSONValue.object(
            JSONObject([
                "chainId": .string("eip155:1"), "method": .string("personal_sign"),
                "params": .string(params.serialized),
            ]))
        let actions = try directory.write("actions.json", JSONValue.array([action]).serialized)
        let key = try directory.write("key", row.privateKey)
        let bound = try directory.write("bound.json", #"{"signInOrigins":["https://example.com"]}"#)
        expectSuccess(
            await signerkit(["sign", "--actions", actions, "--key-file", key, "--policy", bound]),
            ["[\"\(row.signature)\"]"])
        let other = try directory.write("other.json", #"{"signInOrigins":["https://app.example.net"]}"#)
        expectInvalid(
            await signerkit(["sign", "--actions", actions, "--key-file", key, "--policy", other]),
            "error: action[0] (personal_sign): refused by policy SignInDomainBinding: sign-in message for https://example.com, not for the request's origin https://app.example.net"
        )
        let bad = try directory.write("bad.json", #"{"signInOrigins":["https://exa mple.com"]}"#)
        expectInvalid(
            await signerkit(["sign", "--actions", actions, "--key-file", key, "--policy", bad]),
            "signInOrigins[0]: invalid origin")
    }

    @Test("build prints the exact message; build, sign and verify round-trip; bad fields exit 65 naming them")
    func build() async throws {
        let row = try Self.row("eip-example-implicit-scheme")
        let built = await signerkit([
            "siwe", "build", "--domain", "example.com", "--address", row.address.lowercased(), "--statement",
            "I accept the ExampleOrg Terms of Service: https://example.com/tos", "--uri", "https://example.com/login",
            "--chain-id", "1", "--nonce", "32891756", "--issued-at", "2021-09-30T16:25:24Z", "--resource",
            "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/", "--resource",
            "https://example.com/my-web2-claim.json",
        ])
        #expect(built.status == 0, "\(built)")
        #expect(built.stdout == row.message + "\n")
        // Defaults: a random nonce and the current time; the result signs and verifies.
        let directory = try TemporaryDirectory()
        let fresh = await signerkit([
            "siwe", "build", "--scheme", "https", "--domain", "example.com", "--address", row.address, "--uri",
            "https://example.com", "--chain-id", "8453", "--expiration-time", "2099-01-01T00:00:00Z",
        ])
        #expect(fresh.status == 0, "\(fresh)")
        let nonceLine = try #require(fresh.stdoutLines.first { $0.hasPrefix("Nonce: ") })
        #expect(nonceLine.count == "Nonce: ".count + 16)
        let file = try directory.write("fresh.txt", fresh.stdout)
        let key = try directory.write("key", row.privateKey)
        let signed = await signerkit(["siwe", "sign", "--message-file", file, "--key-file", key])
        let signature = try #require(signed.stdoutLines.first, "\(signed)")
        expectSuccess(
            await signerkit([
                "siwe", "verify", "--message-file", file, "--signature", signature, "--domain", "https://example.com",
                "--chain-id", "8453",
            ]), [row.address])
        let required = ["--domain", "example.com", "--address", row.address, "--uri", "x:y", "--chain-id", "1"]
        expectInvalid(await signerkit(["siwe", "build"] + required.dropFirst(2)), "missing --domain")
        expectInvalid(
            await signerkit(["siwe", "build"] + required + ["--nonce", "short"]),
            "SIWE message (Nonce): \"short\" has 5 characters")
        expectInvalid(
            await signerkit(["siwe", "build"] + required + ["--statement", "two\nlines"]),
            "SIWE message (statement): control byte 0xA")
        expectInvalid(
            await signerkit(["siwe", "build"] + required + ["--not-before", "tomorrow"]),
            "--not-before: tomorrow is not an RFC 3339 date-time")
        expectInvalid(
            await signerkit(["siwe", "build", "--address", "0x12"] + required.prefix(2) + required.suffix(4)),
            "--address: invalid address")
    }

    @Test("help lists siwe and its commands")
    func help() async throws {
        let top = await signerkit(["--help"])
        #expect(top.stdout.contains("siwe"), "\(top)")
        let help = await signerkit(["siwe", "verify", "--help"])
        #expect(help.status == 0)
        for flag in ["--message-file", "--signature", "--domain", "--at", "--uri", "--chain-id", "--nonce"] {
            #expect(help.stdout.contains(flag), "\(flag) in \(help)")
        }
    }
}
