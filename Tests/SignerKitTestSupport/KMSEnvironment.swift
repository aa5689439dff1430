import AWSKMSSigner
import EthereumPrimitives
import Foundation

/// A local KMS (``LocalKMS``: ministack behind the SigV4-checking proxy) with the tests' credentials, and the
/// administration the tests do on it (creating keys, aliases, tags) through the same client.
public struct KMSEnvironment: Sendable {
    /// The credentials every test signs with (test values, never real).
    public static let standard = LocalKMS.Credential(
        accessKeyID: "AKIASIGNERKITTEST0001", secretAccessKey: "kms-test-secret-6f1c0b55e2d84a0f9e37")
    /// Temporary credentials: the session token must travel and be signed.
    public static let temporary = LocalKMS.Credential(
        accessKeyID: "ASIASIGNERKITTEST0002", secretAccessKey: "kms-test-secret-temporary-93ad51",
        sessionToken: "kms-test-session-token-FQoGZXIvYXdzEJr")
    /// Temporary credentials the proxy treats as expired.
    public static let expired = LocalKMS.Credential(
        accessKeyID: "ASIASIGNERKITTEST0003", secretAccessKey: "kms-test-secret-expired-7c2e01",
        sessionToken: "kms-test-session-token-expired-IQoJb3", expired: true)
    /// Credentials whose `kms:Sign` is denied.
    public static let signDenied = LocalKMS.Credential(
        accessKeyID: "AKIASIGNERKITTEST0004", secretAccessKey: "kms-test-secret-denied-1b9f44",
        denied: ["TrentService.Sign"])

    /// Every secret and token above: none may appear in any output.
    public static let secrets = [standard, temporary, expired, signDenied].flatMap {
        [$0.secretAccessKey] + ($0.sessionToken.map { [$0] } ?? [])
    }

    /// The local KMS.
    public let kms: LocalKMS
    /// The region every client names.
    public let region = "us-east-1"

    /// Starts a local KMS that knows the four credentials.
    public static func start() async throws -> KMSEnvironment {
        KMSEnvironment(kms: try await LocalKMS.start(credentials: [standard, temporary, expired, signDenied]))
    }

    /// `credential` as the library's credentials.
    public static func credentials(_ credential: LocalKMS.Credential) -> AWSCredentials {
        AWSCredentials(
            accessKeyID: credential.accessKeyID, secretAccessKey: credential.secretAccessKey,
            sessionToken: credential.sessionToken)
    }

    /// A client of the local KMS signing with `credential`.
    public func client(
        _ credential: LocalKMS.Credential = KMSEnvironment.standard, clock: any SignerClock = SystemClock(),
        retryPolicy: HTTPRetryPolicy = AWSKMSClient.defaultRetryPolicy, callTimeout: Duration = .seconds(60)
    ) throws -> AWSKMSClient {
        AWSKMSClient(
            endpoint: try AWSKMSEndpoint(region: region, url: kms.endpoint),
            credentials: Self.credentials(credential), clock: clock, retryPolicy: retryPolicy,
            callTimeout: callTimeout)
    }

    /// Creates a key (`ECC_SECG_P256K1` for signing by default) with `tags`; returns its id.
    public func createKey(spec: String = "ECC_SECG_P256K1", usage: String = "SIGN_VERIFY", tags: [String: String] = [:])
        async throws -> String
    {
        let tagList = JSONValue.array(
            tags.sorted { $0.key < $1.key }.map {
                .object(JSONObject(["TagKey": .string($0.key), "TagValue": .string($0.value)]))
            })
        let answer = try await client().call(
            "CreateKey", ["KeySpec": .string(spec), "KeyUsage": .string(usage), "Tags": tagList])
        guard let id = answer["KeyMetadata"]?["KeyId"]?.stringValue else {
            throw LocalEVMError(description: "CreateKey answered no key id: \(answer.serialized)")
        }
        return id
    }

    /// Points `alias` (`alias/NAME`) at `keyID`.
    public func createAlias(_ alias: String, keyID: String) async throws {
        _ = try await client().call("CreateAlias", ["AliasName": .string(alias), "TargetKeyId": .string(keyID)])
    }

    /// Calls `operation` (`DisableKey`, `ScheduleKeyDeletion`, …) on `keyID` with `extra` members.
    public func administer(_ operation: String, keyID: String, _ extra: JSONObject = JSONObject()) async throws {
        var request = JSONObject(["KeyId": .string(keyID)])
        request.members += extra.members
        _ = try await client().call(operation, .object(request))
    }

    /// The environment a command sees: `credential` in the AWS variables, this KMS as `AWS_ENDPOINT_URL_KMS`
    /// and the region as `AWS_REGION` (no shared credentials file).
    public func commandEnvironment(_ credential: LocalKMS.Credential = KMSEnvironment.standard) -> [String: String] {
        var environment = [
            "AWS_ACCESS_KEY_ID": credential.accessKeyID, "AWS_SECRET_ACCESS_KEY": credential.secretAccessKey,
            "AWS_REGION": region, "AWS_ENDPOINT_URL_KMS": kms.endpoint.absoluteString,
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
        ]
        if let token = credential.sessionToken { environment["AWS_SESSION_TOKEN"] = token }
        return environment
    }

    /// Whether `text` contains none of the test secrets.
    public static func isFreeOfSecrets(_ text: String) -> Bool {
        !secrets.contains { text.contains($0) }
    }
}
