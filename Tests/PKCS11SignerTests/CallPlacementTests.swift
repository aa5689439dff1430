import CPKCS11
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import Testing

@testable import PKCS11Signer

@Suite("PKCS#11 calls run inline or on the session queue")
struct CallPlacementTests {
    @Test(
        "signing, and reopening lost sessions, work with the calls inline and on the queue",
        arguments: [
            CallPlacement.inline, .queue, .adaptive,
        ])
    func placements(_ placement: CallPlacement) async throws {
        let token = try TestHSM.mainToken()
        let label = TestHSM.uniqueLabel("placed")
        _ = try token.generateKeyPair(label: label)
        let signer = try token.signer(for: .label(label), maximumSessions: 2)
        signer.placeCallsForTesting(placement)

        var recoveryIds = Set<UInt8>()
        for round in 0..<16 {
            let message = digest("placed \(placement) \(round)")
            let signature = try await signer.sign(prehash: message)
            #expect(signature.isLowS)
            #expect(try Secp256k1.recoverAddress(prehash: message, signature: signature) == signer.address)
            recoveryIds.insert(signature.recoveryId)
        }
        #expect(recoveryIds.isSubset(of: [0, 1]))
        switch placement {
        case .inline: #expect(signer.inlineCallsForTesting == 16)
        case .queue: #expect(signer.inlineCallsForTesting == 0)
        case .adaptive: break  // depends on the token's speed and on other tests holding the slot
        }

        // Lost sessions are reopened once, on whichever path the failing call ran.
        #expect(signer.loseIdleSessionsForTesting() >= 1)
        let after = digest("placed \(placement) after loss")
        let signature = try await signer.sign(prehash: after)
        #expect(try Secp256k1.recoverAddress(prehash: after, signature: signature) == signer.address)
        #expect(signer.openSessions <= 2)
    }

    @Test("calls run inline only after a quick call, and within the process-wide slots")
    func adaptivePolicy() throws {
        let token = try TestHSM.mainToken()
        let slots = InlineCallSlots(capacity: 1)
        let pool = SessionPool(module: token.module, slot: CK_SLOT_ID(token.slotID), capacity: 2, inlineSlots: slots)
        #expect(pool.beginInlineCall() == nil)  // speed unknown before the first call

        pool.recordCall(nanoseconds: 5_000_000)  // a slow token
        #expect(pool.beginInlineCall() == nil)

        pool.recordCall(nanoseconds: 300_000)  // quick
        let first = try #require(pool.beginInlineCall())
        #expect(pool.beginInlineCall() == nil)  // the only slot is taken
        first.end()
        let second = try #require(pool.beginInlineCall())
        second.end()
        #expect(pool.inlineCalls == 2)

        pool.recordCall(nanoseconds: SessionPool.quickCallNanoseconds + 1)  // turned slow
        #expect(pool.beginInlineCall() == nil)

        let none = SessionPool(
            module: token.module, slot: CK_SLOT_ID(token.slotID), capacity: 1, inlineSlots: InlineCallSlots(capacity: 0)
        )
        none.recordCall(nanoseconds: 1)
        #expect(none.beginInlineCall() == nil)  // no slots: never inline

        #expect(InlineCallSlots.shared.capacity == max(1, ProcessInfo.processInfo.activeProcessorCount))
    }

    @Test(
        "a signature that does not recover to the cached key is rejected, inline and on the queue",
        arguments: [
            CallPlacement.inline, .queue,
        ])
    func mismatchRejected(_ placement: CallPlacement) async throws {
        let token = try TestHSM.mainToken()
        let label = TestHSM.uniqueLabel("mismatch")
        let info = try token.generateKeyPair(label: label)
        let (handle, _) = try token.withAnchor(retry: true) { (session) throws(PKCS11Error) in
            try token.resolve(session: session, .label(label))
        }
        // A signer whose cached public key is not the token key's: every signature must fail the
        // recovery check.
        let other = PrivateKey.generate().publicKey
        let signer = PKCS11Signer(token: token, key: info, publicKey: other, handle: handle, maximumSessions: 1)
        signer.placeCallsForTesting(placement)
        for round in 0..<4 {
            let error = try await #require(throws: PKCS11Error.self) {
                try await signer.signReportingPKCS11Error(prehash: digest("mismatch \(round)"))
            }
            guard case .signatureMismatch(let text) = error else {
                Issue.record("expected signatureMismatch, got \(error)")
                continue
            }
            #expect(text.contains(other.address.checksummed))
            await #expect(throws: SignerError.self) { try await signer.sign(prehash: digest("mismatch \(round)")) }
        }
        #expect(signer.openSessions == 1)  // the session stays usable
    }
}
