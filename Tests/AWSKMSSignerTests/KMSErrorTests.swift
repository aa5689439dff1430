import AWSKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// Keys and credentials that cannot be used, each as its own ``AWSKMSError`` (through `SignerError`'s
/// underlying error), never carrying a secret; throttling backed off on a manual clock within the deadline.
@Suite("AWS KMS errors on a local KMS")
struct KMSErrorTests {
    static let digest = Digest32(Array(repeating: 0x42, count: 32)) ?? Digest32()

    /// The ``AWSKMSError`` inside a `SignerError` from `sign(prehash:)`.
    static func kmsError(_ body: () async throws -> Void) async -> AWSKMSError? {
        do {
            try await body()
            return nil
        } catch let error as SignerError {
            guard case .underlying(let text, let underlying) = error else { return nil }
            #expect(KMSEnvironment.isFreeOfSecrets(text) && KMSEnvironment.isFreeOfSecrets("\(error)"))
            return underlying as? AWSKMSError
        } catch let error as AWSKMSError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test(
        "not found, wrong spec, disabled, pending deletion, denied, expired and refused credentials: each its own error"
    )
    func keyAndCredentialErrors() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let client = try environment.client()
        var errors: [AWSKMSError] = []
        func expectError(_ expected: AWSKMSError, _ body: () async throws -> Void) async {
            let error = await Self.kmsError(body)
            #expect(error == expected)
            if let error { errors.append(error) }
        }

        await expectError(.keyNotFound(keyID: "alias/absent")) {
            _ = try await AWSKMSKeySigner.load(keyID: "alias/absent", client: client)
        }
        await expectError(.invalidKeyID("not a key id")) {
            _ = try await AWSKMSKeySigner.load(keyID: "not a key id", client: client)
        }
        let p256 = try await environment.createKey(spec: "ECC_NIST_P256")
        await expectError(.wrongKeySpec(keyID: p256, keySpec: "ECC_NIST_P256", keyUsage: "SIGN_VERIFY")) {
            _ = try await AWSKMSKeySigner.load(keyID: p256, client: client)
        }
        let rsa = try await environment.createKey(spec: "RSA_2048", usage: "ENCRYPT_DECRYPT")
        await expectError(.wrongKeySpec(keyID: rsa, keySpec: "RSA_2048", keyUsage: "ENCRYPT_DECRYPT")) {
            _ = try await AWSKMSKeySigner.load(keyID: rsa, client: client)
        }

        let disabled = try await environment.createKey()
        let disabledSigner = try await AWSKMSKeySigner.load(keyID: disabled, client: client)
        try await environment.administer("DisableKey", keyID: disabled)
        await expectError(.keyDisabled(keyID: disabled)) { _ = try await disabledSigner.sign(prehash: Self.digest) }
        try await environment.administer("EnableKey", keyID: disabled)
        _ = try await disabledSigner.sign(prehash: Self.digest)  // usable again: nothing cached the failure

        let deleted = try await environment.createKey()
        let deletedSigner = try await AWSKMSKeySigner.load(keyID: deleted, client: client)
        try await environment.administer("ScheduleKeyDeletion", keyID: deleted, ["PendingWindowInDays": 7])
        await expectError(.keyPendingDeletion(keyID: deleted)) {
            _ = try await deletedSigner.sign(prehash: Self.digest)
        }

        let key = try await environment.createKey()
        let denied = try await AWSKMSKeySigner.load(
            keyID: key, client: try environment.client(KMSEnvironment.signDenied))
        await expectError(
            .accessDenied(keyID: key, operation: "kms:Sign", message: "User is not authorized to perform: kms:Sign")
        ) {
            _ = try await denied.sign(prehash: Self.digest)
        }
        await expectError(.expiredCredentials(keyID: key)) {
            _ = try await AWSKMSKeySigner.load(keyID: key, client: try environment.client(KMSEnvironment.expired))
        }
        var wrongSecret = KMSEnvironment.standard
        wrongSecret.secretAccessKey += "x"
        await expectError(.rejectedCredentials(keyID: key, exception: "InvalidSignatureException")) {
            _ = try await AWSKMSKeySigner.load(keyID: key, client: try environment.client(wrongSecret))
        }
        var tokenless = KMSEnvironment.temporary
        tokenless.sessionToken = nil
        await expectError(.rejectedCredentials(keyID: key, exception: "UnrecognizedClientException")) {
            _ = try await AWSKMSKeySigner.load(keyID: key, client: try environment.client(tokenless))
        }

        #expect(errors.count == 10)
        #expect(Set(errors.map { "\($0)" }).count == errors.count, "distinct texts")
        for error in errors {
            #expect(
                KMSEnvironment.isFreeOfSecrets("\(error)") && KMSEnvironment.isFreeOfSecrets(String(reflecting: error)))
            #expect(error.keyID != nil)
        }
        let signer = try await AWSKMSKeySigner.load(
            keyID: key, client: try environment.client(KMSEnvironment.temporary))
        var dumped = ""
        dump(signer.client, to: &dumped)
        for shown in ["\(signer)", String(reflecting: signer), "\(signer.client.credentials)", dumped] {
            #expect(KMSEnvironment.isFreeOfSecrets(shown), "\(shown)")
        }
    }

    /// A signature with `signer`, or its KMS error, as a task that never throws (for the manual clock's checks).
    static func signing(_ signer: AWSKMSKeySigner) -> Task<Result<RecoverableSignature, AWSKMSError>, Never> {
        Task {
            do throws(AWSKMSError) { return .success(try await signer.signReportingKMSError(prehash: digest)) } catch {
                return .failure(error)
            }
        }
    }

    /// Advances `clock` by each of `waits` once the task is asleep on it; fails the test if the task ends first.
    static func advance(
        _ clock: ManualClock, through waits: [Duration], of task: Task<Result<RecoverableSignature, AWSKMSError>, Never>
    ) async {
        for wait in waits {
            guard await clock.asleep(orDone: task) else {
                Issue.record("the call ended instead of backing off \(wait)")
                return
            }
            clock.advance(by: wait)
        }
    }

    @Test(
        "throttling: retried after the policy's back-off on the injected clock; given up at the deadline or the last retry"
    )
    func throttling() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let keyID = try await environment.createKey()
        // Waits of minutes on the manual clock: it runs ahead of the real one, which bounds each HTTP attempt.
        let clock = ManualClock()
        let policy = HTTPRetryPolicy(maxRetries: 3, baseDelay: .seconds(30), maxDelay: .seconds(600))
        let client = try environment.client(clock: clock, retryPolicy: policy, callTimeout: .seconds(3600))
        let signer = try await AWSKMSKeySigner.load(keyID: keyID, client: client)

        // Two throttled answers, then a signature: waits of 30 s and 60 s on the clock.
        try await environment.kms.throttle(next: 2)
        let first = Self.signing(signer)
        await Self.advance(clock, through: [.seconds(30), .seconds(60)], of: first)
        let signature = try await first.value.get()
        #expect(try ECDSA.recoverAddress(prehash: Self.digest, signature: signature) == signer.address)
        #expect(try await environment.kms.stats().throttled == 2)
        #expect(clock.sleeperCount == 0)

        // Throttled throughout, a 100 s deadline: 30 s, 60 s, then a 120 s wait would pass it: three attempts.
        let hurried = try await AWSKMSKeySigner.load(
            keyID: keyID, client: try environment.client(clock: clock, retryPolicy: policy, callTimeout: .seconds(100)))
        try await environment.kms.throttle(next: 100)
        let late = Self.signing(hurried)
        await Self.advance(clock, through: [.seconds(30), .seconds(60)], of: late)
        #expect(try await clock.value(of: late) == .failure(.throttled(keyID: keyID, attempts: 3)))

        // A long deadline: the retries run out first (1 + 3 attempts), through sign(prehash:) as SignerError.
        let exhausted = Self.signing(signer)
        await Self.advance(clock, through: [.seconds(30), .seconds(60), .seconds(120)], of: exhausted)
        let last = try await clock.value(of: exhausted)
        #expect(last == .failure(.throttled(keyID: keyID, attempts: 4)))
        #expect(AWSKMSError.throttled(keyID: keyID, attempts: 4).isTransient)
    }
}
