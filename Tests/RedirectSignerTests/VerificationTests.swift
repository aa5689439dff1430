import EthereumPrimitives
import RedirectSigner
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

@Suite("Verification")
struct VerificationTests {
    let digest = PersonalMessage.digest(Array("hello".utf8))

    func callback(_ data: String, method: WaypointMethod = .sign) -> WaypointCallback {
        WaypointCallback(
            base: "x://y", state: "s", method: method, version: nil,
            outcome: .success(data: data, address: nil, secondaryAddress: nil))
    }

    @Test func signatureByTheExpectedKeyVerifies() async throws {
        let signature = try await TestKeys.wallet.sign(prehash: digest)
        let verified = try WaypointVerification.signature(
            callback(signature.hex), digest: digest, expected: TestKeys.wallet.address)
        #expect(verified == signature)
    }

    @Test func someoneElsesSignatureIsAnError() async throws {
        let signature = try await TestKeys.other.sign(prehash: digest)
        #expect {
            try WaypointVerification.signature(
                callback(signature.hex), digest: digest, expected: TestKeys.wallet.address)
        } throws: { error in
            guard case WaypointError.verificationFailed(let text) = error else { return false }
            return text.contains(TestKeys.other.address.checksummed)
        }
    }

    @Test func signatureOverAnotherDigestIsAnError() async throws {
        let signature = try await TestKeys.wallet.sign(prehash: PersonalMessage.digest(Array("other".utf8)))
        #expect(throws: WaypointError.self) {
            try WaypointVerification.signature(
                callback(signature.hex), digest: digest, expected: TestKeys.wallet.address)
        }
    }

    @Test func highSIsNormalised() async throws {
        let signature = try await TestKeys.wallet.sign(prehash: digest)
        let highS = UInt256(word: Secp256k1Order.order.subtractingWord(signature.s))
        let flipped = try RecoverableSignature(r: signature.r, s: highS.word, recoveryId: signature.recoveryId ^ 1)
        #expect(!flipped.isLowS)
        let verified = try WaypointVerification.signature(
            callback(flipped.hex), digest: digest, expected: TestKeys.wallet.address)
        #expect(verified == signature)
    }

    @Test(arguments: ["", "0x", "0x1234", "not hex", "0x" + String(repeating: "00", count: 65)])
    func garbageSignaturesAreErrors(data: String) {
        #expect(throws: WaypointError.self) {
            try WaypointVerification.signature(callback(data), digest: digest, expected: TestKeys.wallet.address)
        }
    }

    @Test func transactionHashMustBe32Bytes() throws {
        let hash = "0x" + String(repeating: "ab", count: 32)
        #expect(try WaypointVerification.transactionHash(callback(hash, method: .send)).hex == hash)
        for bad in [
            "0x" + String(repeating: "ab", count: 31), "0x" + String(repeating: "ab", count: 33),
            "ab" + String(repeating: "ab", count: 31), "",
        ] {
            #expect(throws: WaypointError.self) {
                try WaypointVerification.transactionHash(callback(bad, method: .send))
            }
        }
    }

    @Test func failureCallbacksBecomeWalletFailures() {
        let failure = WaypointFailure(code: .cantSimulate, name: "WALLET_CANT_SIMULATE", message: "reverted")
        let fail = WaypointCallback(base: "x://y", state: "s", method: .send, version: nil, outcome: .failure(failure))
        #expect(throws: WaypointError.walletFailure(failure)) { try WaypointVerification.transactionHash(fail) }
    }

    @Test func authorization() throws {
        let ok = WaypointCallback(
            base: "x://y", state: "s", method: .auth, version: "1",
            outcome: .success(
                data: "tok", address: "ronin:2c7536e3605d9c16a7a3d7b1898e529396a65c23", secondaryAddress: nil))
        let auth = try WaypointVerification.authorization(ok)
        #expect(auth.address == TestKeys.wallet.address)
        #expect(auth.idToken == "tok")
        #expect(auth.addresses == [TestKeys.wallet.address])
        let noAddress = WaypointCallback(
            base: "x://y", state: "s", method: .auth, version: nil,
            outcome: .success(data: "tok", address: nil, secondaryAddress: nil))
        #expect(throws: WaypointError.self) { try WaypointVerification.authorization(noAddress) }
        let badSecondary = WaypointCallback(
            base: "x://y", state: "s", method: .auth, version: nil,
            outcome: .success(data: "tok", address: TestKeys.wallet.address.lowercased, secondaryAddress: "0x12"))
        #expect(throws: WaypointError.self) { try WaypointVerification.authorization(badSecondary) }
    }

    @Test func errorsMapToSignerErrors() {
        let cancel = WaypointFailure(code: .userCancel, name: "WALLET_USER_CANCEL", message: "User rejected")
        #expect(
            WaypointError.walletFailure(cancel).signerError
                == .rejected("hosted wallet: [WALLET_USER_CANCEL] User rejected (code 1000)"))
        guard
            case .backendFailure = WaypointError.walletFailure(
                WaypointFailure(code: .unknownError, name: nil, message: "x")
            ).signerError
        else { Issue.record("expected backendFailure"); return }
        guard case .verificationFailed = WaypointError.verificationFailed("x").signerError else {
            Issue.record("expected verificationFailed")
            return
        }
        guard case .invalidRequest = WaypointError.messageNotText.signerError else {
            Issue.record("expected invalidRequest")
            return
        }
    }
}

extension UInt256 {
    /// `self - other` for `other <= self` (test helper).
    func subtractingWord(_ other: Bytes32) -> Bytes32 {
        let a = [limbs.0, limbs.1, limbs.2, limbs.3]
        let o = UInt256(word: other).limbs
        let b = [o.0, o.1, o.2, o.3]
        var out = [UInt64](repeating: 0, count: 4)
        var borrow: UInt64 = 0
        for i in 0..<4 {
            let (d1, o1) = a[i].subtractingReportingOverflow(b[i])
            let (d2, o2) = d1.subtractingReportingOverflow(borrow)
            out[i] = d2
            borrow = (o1 || o2) ? 1 : 0
        }
        return UInt256(limbs: (out[0], out[1], out[2], out[3])).word
    }
}
