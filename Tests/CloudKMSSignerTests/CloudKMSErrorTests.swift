import CloudKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// Each typed error of both services, from the stand-ins' answers; none shows a secret.
@Suite("Google Cloud KMS and Azure Key Vault errors on the stand-ins")
struct CloudKMSErrorTests {
    static let digest = Digest32(Array(repeating: 0x5A, count: 32)) ?? Digest32()

    @Test(
        "not found, wrong algorithm or curve, disabled, access denied, server error: each its typed error",
        arguments: [LocalCloudKMS.Service.gcp, .azure])
    func keyErrors(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let provider: CloudKMSProvider = service == .gcp ? .googleCloudKMS : .azureKeyVault
        let (name, _) = try await fixture.standins.createKey(service)
        let missing =
            service == .gcp
            ? name.replacingOccurrences(of: "cryptoKeyVersions/1", with: "cryptoKeyVersions/9")
            : name.replacingOccurrences(of: "/keys/signer-1/", with: "/keys/absent/")
        #expect(await fixture.load(service, missing) == .keyNotFound(provider, key: missing))

        let (p256, _) = try await fixture.standins.createKey(service, kind: "p256")
        let found = service == .gcp ? "EC_SIGN_P256_SHA256" : "kty EC, crv P-256"
        #expect(await fixture.load(service, p256) == .wrongAlgorithm(provider, key: p256, found: found))

        // Disabled after loading: signing fails with keyDisabled; loading it again too.
        let signer = try await fixture.signer(service, name)
        try await fixture.standins.setEnabled(name, false)
        var errors: [CloudKMSError] = []
        do throws(CloudKMSError) { _ = try await signer.sign(Self.digest) } catch { errors.append(error) }
        if let reloaded = await fixture.load(service, name) { errors.append(reloaded) }
        #expect(errors.count == 2)
        for error in errors {
            guard case .keyDisabled(provider, name, _) = error else {
                Issue.record("expected keyDisabled, got \(error)")
                continue
            }
        }
        try await fixture.standins.setEnabled(name, true)

        // 403: access denied, never retried; through sign(prehash:) as SignerError's underlying error.
        try await fixture.standins.fail(next: 1, status: 403)
        do {
            _ = try await signer.signer.sign(prehash: Self.digest)
            Issue.record("a 403 signed")
        } catch {
            guard case .underlying(_, let underlying) = error, let cloud = underlying as? CloudKMSError,
                case .accessDenied(provider, name, _, 403, _) = cloud
            else { throw error }
            errors.append(cloud)
        }
        // 500 answers are repeated (a server error is transient); one that outlasts the retries is `service`.
        let skipping = SkippingClock()
        let patient = try await fixture.signer(service, name, clock: skipping)
        try await fixture.standins.fail(next: 1, status: 500)
        _ = try await patient.sign(Self.digest)
        #expect(skipping.waits.count == 1, "one back-off before the repeat")
        let strict = try await fixture.signer(
            service, name,
            retryPolicy: HTTPRetryPolicy(maxRetries: 0, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1)))
        try await fixture.standins.fail(next: 1, status: 500)
        do throws(CloudKMSError) {
            _ = try await strict.sign(Self.digest)
            Issue.record("a 500 signed")
        } catch {
            guard case .service(provider, name, 500, _, _) = error else { throw error }
            #expect(error.isTransient)
            errors.append(error)
        }
        #expect(try await fixture.standins.stats()["failed"] == 3)
        for error in errors {
            #expect(error.key == name && error.description.contains(String(name.prefix(20))), "\(error)")
            #expect(fixture.isFreeOfSecrets("\(error)") && fixture.isFreeOfSecrets(String(reflecting: error)))
        }
    }

    @Test(
        "a spoilt answer: a signature of another key, a field missing or malformed, a CRC32C that does not match",
        arguments: [LocalCloudKMS.Service.gcp, .azure])
    func spoiltAnswers(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let provider: CloudKMSProvider = service == .gcp ? .googleCloudKMS : .azureKeyVault
        let name = try await fixture.standins.createKey(service).name
        let signer = try await fixture.signer(service, name)

        // Another key's signature: never returned; through sign(prehash:) it is a verification failure.
        try await fixture.standins.tamper(next: 1, mode: "otherKey")
        await #expect(
            throws: SignerError.verificationFailed(CloudKMSError.signatureMismatch(provider, key: name).description)
        ) {
            _ = try await signer.signer.sign(prehash: Self.digest)
        }
        try await fixture.standins.tamper(next: 1, mode: "malformed")
        do throws(CloudKMSError) {
            _ = try await signer.sign(Self.digest)
            Issue.record("a malformed answer signed")
        } catch {
            guard case .malformedResponse(provider, name, let field, _) = error else { throw error }
            #expect(field == (service == .gcp ? "signature" : "value"))
        }
        if service == .gcp {
            try await fixture.standins.tamper(next: 1, mode: "crc")
            do throws(CloudKMSError) {
                _ = try await signer.sign(Self.digest)
                Issue.record("a signature with a wrong CRC32C was returned")
            } catch {
                #expect(error == .checksumMismatch(.googleCloudKMS, key: name, field: "signature"))
                #expect(error.isTransient)
            }
        }
        // The next answer is sound again.
        let signature = try await signer.sign(Self.digest)
        #expect(try ECDSA.recoverAddress(prehash: Self.digest, signature: signature) == signer.signer.address)
    }

    /// Advances `clock` by each of `waits` once the task is asleep on it; fails the test if the task ends first.
    static func advance(
        _ clock: ManualClock, through waits: [Duration],
        of task: Task<Result<RecoverableSignature, CloudKMSError>, Never>
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
        "429: retried after the policy's back-off on the injected clock; given up at the deadline or the last retry",
        arguments: [LocalCloudKMS.Service.gcp, .azure])
    func throttling(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let provider: CloudKMSProvider = service == .gcp ? .googleCloudKMS : .azureKeyVault
        let name = try await fixture.standins.createKey(service).name
        let clock = ManualClock()
        let policy = HTTPRetryPolicy(maxRetries: 3, baseDelay: .seconds(30), maxDelay: .seconds(600))
        let signer = try await fixture.signer(
            service, name, clock: clock, retryPolicy: policy, callTimeout: .seconds(3600))

        // Two throttled answers, then a signature: waits of 30 s and 60 s on the clock.
        try await fixture.standins.fail(next: 2, status: 429)
        let first = signer.signing(Self.digest)
        await Self.advance(clock, through: [.seconds(30), .seconds(60)], of: first)
        let signature = try await first.value.get()
        #expect(try ECDSA.recoverAddress(prehash: Self.digest, signature: signature) == signer.signer.address)
        #expect(clock.sleeperCount == 0)

        // Throttled throughout, a 100 s deadline: 30 s, 60 s, then a 120 s wait would pass it: three attempts.
        let hurried = try await fixture.signer(
            service, name, clock: clock, retryPolicy: policy, callTimeout: .seconds(100))
        try await fixture.standins.fail(next: 100, status: 429)
        let late = hurried.signing(Self.digest)
        await Self.advance(clock, through: [.seconds(30), .seconds(60)], of: late)
        #expect(try await clock.value(of: late) == .failure(.throttled(provider, key: name, attempts: 3)))

        // A long deadline: the retries run out first (1 + 3 attempts).
        let exhausted = signer.signing(Self.digest)
        await Self.advance(clock, through: [.seconds(30), .seconds(60), .seconds(120)], of: exhausted)
        #expect(try await clock.value(of: exhausted) == .failure(.throttled(provider, key: name, attempts: 4)))
        #expect(CloudKMSError.throttled(provider, key: name, attempts: 4).isTransient)
    }

    @Test("token failures: a wrong client secret, a service account the token endpoint does not know")
    func tokenFailures() async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let azureKey = try await fixture.standins.createKey(.azure).name
        let wrongSecret = "not-the-secret-\(UUID().uuidString)"
        let azure = await fixture.load(.azure, azureKey, secret: wrongSecret)
        guard case .tokenRefused(.azureKeyVault, 401, "invalid_client", _)? = azure else {
            Issue.record("expected tokenRefused, got \(String(describing: azure))")
            return
        }
        #expect(!"\(azure!)".contains(wrongSecret) && fixture.isFreeOfSecrets("\(azure!)"))

        // The same account with another RSA key: the stand-in's RS256 check refuses the JWT.
        let gcpKey = try await fixture.standins.createKey(.gcp).name
        let original = try JSONValue(
            parsing: Array(try Data(contentsOf: URL(fileURLWithPath: fixture.standins.serviceAccountPath))))
        var members = try #require(original.objectValue)
        let otherKey = try await PythonOracle.run(
            "import json; from Crypto.PublicKey import RSA; print(json.dumps(RSA.generate(2048).export_key(pkcs=8).decode()))",
            input: .null)
        members["private_key"] = otherKey
        let impostor = fixture.standins.stateDirectory.appendingPathComponent("impostor.json").path
        try Data(JSONValue.object(members).serialized.utf8).write(to: URL(fileURLWithPath: impostor))
        do throws(CloudKMSError) {
            _ = try await GCPKMSKeySigner.load(name: gcpKey, client: try fixture.gcpClient(serviceAccount: impostor))
            Issue.record("a JWT signed with another key was accepted")
        } catch {
            guard case .tokenRefused(.googleCloudKMS, 400, "invalid_grant", let message) = error else { throw error }
            #expect(message == "Invalid JWT Signature.")
            #expect(fixture.isFreeOfSecrets("\(error)") && !"\(error)".contains("MII"))
        }
        #expect(try await fixture.standins.stats()["gcpTokens"] == 0)
    }

    @Test("descriptions, mirrors and dumps of credentials, clients and signers show no secret")
    func noSecretsShown() async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let gcp = try await fixture.signer(.gcp, try await fixture.standins.createKey(.gcp).name)
        let azure = try await fixture.signer(.azure, try await fixture.standins.createKey(.azure).name)
        var shown: [String] = []
        for value in [gcp.signer, azure.signer] as [Any] {
            var dumped = ""
            dump(value, to: &dumped)
            shown += ["\(value)", String(reflecting: value), dumped]
        }
        if case .gcp(let signer) = gcp { shown += ["\(signer.client.serviceAccount)"] }
        if case .azure(let signer) = azure { shown += ["\(signer.client.credentials)"] }
        for text in shown { #expect(fixture.isFreeOfSecrets(text), "\(text)") }
    }
}
