import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

@Suite("EIP-4361 messages: sign and verify")
struct SignInVerificationTests {
    static func date(_ text: String) throws -> Date { try RFC3339DateTime(text).date }

    @Test(
        "SignerKit's software key makes eth-account's signature, and it verifies",
        arguments: try SignInFixtures.signed())
    func oracle(row: SignInFixtures.Signed) async throws {
        let message = try SignInMessage(parsing: row.message)
        let key = try SoftwareKeySigner(hex: row.privateKey)
        let signature = try await key.signSignIn(message)
        #expect(signature.hex == row.signature, "RFC 6979 signatures are deterministic: eth-account made the same")
        #expect(try await key.signPersonalMessage(Array(row.message.utf8)) == signature)
        let signer = try message.verify(
            signature: RecoverableSignature(hex: row.signature), expectedDomain: message.domain,
            expectedURI: message.uri, expectedChainId: message.chainId, expectedNonce: message.nonce,
            at: Self.date("2026-12-02T10:05:00Z"))
        #expect(signer == row.address)
    }

    @Test("every check fails alone, named, in the documented order")
    func checks() throws {
        let row = try SignInFixtures.signed("no-statement-every-optional-field")
        let message = try SignInMessage(parsing: row.message)
        let signature = try RecoverableSignature(hex: row.signature)
        let inWindow = try Self.date("2026-12-02T10:05:00Z")
        func failure(
            domain: String = "app.example.org", uri: String? = nil, chain: UInt256? = nil, nonce: String? = nil,
            at: Date? = nil, signature given: RecoverableSignature? = nil
        ) -> SignInVerificationError? {
            #expect(throws: SignInVerificationError.self) {
                try message.verify(
                    signature: given ?? signature, expectedDomain: domain, expectedURI: uri, expectedChainId: chain,
                    expectedNonce: nonce, at: at ?? inWindow)
            }
        }
        #expect(
            try message.verify(signature: signature, expectedDomain: "APP.example.ORG", at: inWindow) == row.address)
        #expect(
            try message.verify(signature: signature, expectedDomain: "https://app.example.org", at: inWindow)
                == row.address)
        let domain = failure(domain: "evil.example")
        #expect(domain == .domain(expected: "evil.example", actual: "app.example.org"))
        #expect(domain?.check == .domain)
        #expect(
            domain?.description
                == "SIWE check domain failed: the message is for \"app.example.org\", not \"evil.example\"")
        #expect(failure(domain: "http://app.example.org")?.check == .domain, "the scheme is https when absent")
        #expect(failure(domain: "app.example.org:443")?.check == .domain)
        #expect(failure(uri: "https://app.example.org/session")?.check == .uri)
        #expect(failure(chain: 1) == .chainId(expected: 1, actual: 8453))
        #expect(failure(nonce: "zx8pq2rtw4lmn9ab")?.check == .nonce, "nonces compare exactly")
        // Not Before is 10:00:00Z (written 11:00:00+01:00); Expiration Time 10:15:00Z.
        #expect(failure(at: try Self.date("2026-12-02T09:59:59.999Z"))?.check == .notBefore)
        #expect(failure(at: try Self.date("2026-12-02T10:15:00Z"))?.check == .expirationTime)
        #expect(
            failure(at: try Self.date("2026-12-02T10:15:00Z"))?.description
                == "SIWE check expiration-time failed: the message expired at 2026-12-02T10:15:00Z, before 2026-12-02T10:15:00Z"
        )
        #expect(throws: Never.self) {
            try message.verify(
                signature: signature, expectedDomain: "app.example.org", at: Self.date("2026-12-02T10:00:00Z"))
        }
        #expect(throws: Never.self) {
            try message.verify(
                signature: signature, expectedDomain: "app.example.org", at: Self.date("2026-12-02T10:14:59.999Z"))
        }
        // The signature is checked first, against the message's own address: another message's signature
        // recovers to some other account over this message's digest.
        let wrong = try RecoverableSignature(hex: SignInFixtures.signed("eip-example-implicit-scheme").signature)
        let signatureFailure = failure(domain: "evil.example", signature: wrong)
        #expect(signatureFailure?.check == .signature)
        guard case .signature(.wrongSigner(let expected, let actual))? = signatureFailure else {
            Issue.record("expected wrongSigner, got \(String(describing: signatureFailure))")
            return
        }
        #expect(expected == message.address && actual != message.address)
        #expect(signatureFailure?.description.hasPrefix("SIWE check signature failed: signature is by ") == true)
    }

    @Test("a high-s twin of a valid signature is refused (EIP-2), as is a signature of other bytes")
    func malleability() throws {
        let row = try SignInFixtures.signed("eip-example-implicit-scheme")
        let message = try SignInMessage(parsing: row.message)
        let signature = try RecoverableSignature(hex: row.signature)
        let highS = Secp256k1Order.order.subtractingReportingOverflow(UInt256(word: signature.s)).partialValue
        let twin = try RecoverableSignature(r: signature.r, s: highS.word, recoveryId: signature.recoveryId ^ 1)
        let error = #expect(throws: SignInVerificationError.self) {
            try message.verify(signature: twin, expectedDomain: "example.com", at: Self.date("2021-10-01T00:00:00Z"))
        }
        #expect(error == .signature(.highS))
        // The same signature over the message with one more resource.
        let longer = try SignInMessage(parsing: row.message + "\n- https://example.com/more")
        let moved = #expect(throws: SignInVerificationError.self) {
            try longer.verify(
                signature: signature, expectedDomain: "example.com", at: Self.date("2021-10-01T00:00:00Z"))
        }
        #expect(moved?.check == .signature)
    }

    @Test("signSignIn refuses a message for another account; personalSignAction carries the exact bytes")
    func signingHelpers() async throws {
        let beta = try SoftwareKeySigner(hex: TestKeys.betaHex)
        let message = try SignInMessage(parsing: SignInFixtures.signed("eip-example-port").message)
        let error = await #expect(throws: SignerError.self) { try await beta.signSignIn(message) }
        #expect(error?.description.contains("is for \(message.address.checksummed)") == true)
        let action = try message.personalSignAction()
        #expect(action.chainId == ChainID(eip155: 1))
        #expect(action.method == RpcMethod.personalSign.rawValue)
        #expect(action.params == "[\"\(Hex.encode(message.bytes))\",\"\(message.address.checksummed)\"]")
        #expect(try message.personalSignAction(chain: TestChains.base).chainId == TestChains.base)
    }
}
