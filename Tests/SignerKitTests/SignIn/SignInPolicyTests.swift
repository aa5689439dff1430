import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

@Suite("SignInDomainBinding and the SIWE preview")
struct SignInPolicyTests {
    let alpha: SoftwareKeySigner

    init() throws { alpha = try TestKeys.signer(TestKeys.alphaHex) }

    /// The EIP example signed in by alpha, from `origin` (`example.com`, `https://example.com:3388`, …).
    func message(origin: String) throws -> SignInMessage {
        let base = try SignInMessage(parsing: SignInFixtures.signed("eip-example-implicit-scheme").message)
        var scheme: String?
        var domain = origin
        if let range = origin.range(of: "://") {
            scheme = String(origin[..<range.lowerBound])
            domain = String(origin[range.upperBound...])
        }
        return try SignInMessage(
            scheme: scheme, domain: domain, address: base.address, statement: base.statement, uri: base.uri,
            chainId: base.chainId, nonce: base.nonce, issuedAt: base.issuedAt, resources: base.resources)
    }

    func dispatcher(_ origins: String...) throws -> RpcDispatcher {
        let bound = try origins.map { (text) throws(SignInOriginError) in try SignInOrigin(text) }
        let dispatcher = RpcDispatcher { SignInDomainBinding(origins: bound) }
        try dispatcher.register(alpha)
        return dispatcher
    }

    func expectRefused(
        _ dispatcher: RpcDispatcher, _ action: WalletRpcAction, _ fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await #expect(throws: DispatchError.self, sourceLocation: sourceLocation) {
            try await dispatcher.sign(actions: [Actions.personal("hello", alpha.address), action])
        }
        guard case .policyViolation(let policy, let reason)? = error?.kind else {
            Issue.record(
                "expected a policy violation, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(error?.index == 1, sourceLocation: sourceLocation)
        #expect(policy == "SignInDomainBinding", sourceLocation: sourceLocation)
        #expect(reason.contains(fragment), "\(reason)", sourceLocation: sourceLocation)
    }

    @Test("the expected origin signs through the real dispatcher, and the result verifies as a sign-in")
    func expectedOriginSigns() async throws {
        let dispatcher = try dispatcher("https://example.com")
        for origin in ["example.com", "https://example.com", "example.com:443", "HTTPS://Example.COM"] {
            let message = try message(origin: origin)
            let signed = try await dispatcher.sign(actions: [try message.personalSignAction()])
            let signature = try RecoverableSignature(hex: try #require(signed.results.first))
            #expect(
                try message.verify(
                    signature: signature, expectedDomain: origin, at: RFC3339DateTime("2021-10-01T00:00:00Z").date)
                    == alpha.address)
        }
        // Text params (not hex) are judged the same way, as is an ordinary message.
        let text = try message(origin: "example.com").text
        let signed = try await dispatcher.sign(actions: [
            Actions.personal(text, alpha.address), Actions.personal("gm", alpha.address),
        ])
        #expect(signed.results.count == 2)
    }

    @Test("the phishing case: a sign-in for another origin is refused before anything is signed")
    func phishing() async throws {
        let dispatcher = try dispatcher("https://example.com")
        let cases: [(String, String)] = [
            (
                "evil.example",
                "sign-in message for https://evil.example, not for the request's origin https://example.com"
            ),
            ("example.com.evil.example", "https://example.com.evil.example"),
            ("http://example.com", "http://example.com"),
            ("example.com:8443", "https://example.com:8443"),
            ("sub.example.com", "https://sub.example.com"),
        ]
        for (origin, fragment) in cases {
            await expectRefused(dispatcher, try message(origin: origin).personalSignAction(), fragment)
        }
        await expectRefused(
            dispatcher, try message(origin: "evil@example.com").personalSignAction(), "user info")
    }

    @Test("a message that claims to be a sign-in but is malformed is refused with the parse error")
    func malformedClaim() async throws {
        let dispatcher = try dispatcher("example.com")
        let lowercase = try message(origin: "example.com").text.replacingOccurrences(
            of: alpha.address.checksummed, with: alpha.address.lowercased)
        await expectRefused(
            dispatcher, Actions.personal(lowercase, alpha.address),
            "not a valid EIP-4361 message: SIWE message line 2 (address): ")
        await expectRefused(
            dispatcher,
            Actions.personal("Hi! evil.example wants you to sign in with your Ethereum account", alpha.address),
            "not a valid EIP-4361 message")
    }

    @Test("several origins, localhost with a port, and the policy file member signInOrigins")
    func originsAndPolicyFile() async throws {
        let dispatcher = try dispatcher("https://example.com", "http://localhost:3000")
        _ = try await dispatcher.sign(actions: [try message(origin: "http://localhost:3000").personalSignAction()])
        await expectRefused(
            dispatcher, try message(origin: "localhost:3000").personalSignAction(),
            "not for one of https://example.com, http://localhost:3000")
        let policies = try PolicyFile.policies(jsonText: #"{"signInOrigins":["https://example.com"]}"#)
        let fromFile = RpcDispatcher(policies: { policies })
        try fromFile.register(alpha)
        await expectRefused(fromFile, try message(origin: "evil.example").personalSignAction(), "https://evil.example")
        _ = try await fromFile.sign(actions: [try message(origin: "example.com").personalSignAction()])
        let bad = #expect(throws: PolicyFileError.self) {
            try PolicyFile.policies(jsonText: #"{"signInOrigins":["https://example.com","https://a b"]}"#)
        }
        #expect(bad?.path == "signInOrigins[1]")
        #expect(throws: PolicyFileError.self) { try PolicyFile.policies(jsonText: #"{"signInOrigins":"example.com"}"#) }
    }

    @Test("origins parse strictly")
    func origins() throws {
        #expect(try SignInOrigin("example.com") == SignInOrigin("https://example.com:443/"))
        #expect(try SignInOrigin("http://[::1]:8080").description == "http://[::1]:8080")
        #expect(try SignInOrigin("wss://relay.example").port == 443)
        #expect(try SignInOrigin("custom://host").port == nil)
        for bad in ["", "https://", "https://a@b", "https://example.com:99999", "1x://a", "https://a/b"] {
            #expect(throws: SignInOriginError.self, "\(bad)") { try SignInOrigin(bad) }
        }
    }

    @Test("the preview parses with the same parser: scheme, domain, resources; malformed claims are flagged")
    func preview() throws {
        let dispatcher = try dispatcher("https://example.com")
        let message = try SignInMessage(parsing: SignInFixtures.signed("eip-example-explicit-scheme").message)
        let previews = try dispatcher.preview(actions: [
            try message.personalSignAction(),
            Actions.personal(message.text.replacingOccurrences(of: "Version: 1", with: "Version: 2"), alpha.address),
        ])
        #expect(previews[0].kind == .siwe)
        #expect(previews[0].owner == alpha.address)
        #expect(
            previews[0].fields.prefix(2) == [
                PreviewField(label: "scheme", value: "https"), PreviewField(label: "domain", value: "example.com"),
            ])
        #expect(
            previews[0].fields.contains(
                PreviewField(label: "Resources[1]", value: "https://example.com/my-web2-claim.json")))
        #expect(previews[0].warnings.isEmpty)
        #expect(previews[1].kind == .message)
        #expect(previews[1].warnings == [.unrecognized])
        #expect(previews[1].fields.first?.label == "not EIP-4361")
        #expect(previews[1].fields.first?.value.contains("line 7 (Version)") == true)
    }
}
