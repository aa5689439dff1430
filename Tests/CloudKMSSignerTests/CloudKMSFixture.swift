import CloudKMSSigner
import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitCurl
import SignerKitTestSupport

/// The stand-ins (``LocalCloudKMS``) with clients of both services built as an application builds them, and
/// what no output may ever contain.
struct CloudKMSFixture {
    /// The stand-ins.
    let standins: LocalCloudKMS

    /// Starts the stand-ins.
    static func start() async throws -> CloudKMSFixture { CloudKMSFixture(standins: try await LocalCloudKMS.start()) }

    /// The transport for `clock`: a manual clock's deadlines translated to real time.
    static func transport(_ clock: any SignerClock) -> any HTTPTransport {
        if let manual = clock as? ManualClock { return ManualClockTransport(CurlHTTPTransport.shared, clock: manual) }
        return CurlHTTPTransport.shared
    }

    /// A Cloud KMS client of the stand-in, as the service account the stand-in made.
    func gcpClient(
        clock: any SignerClock = SystemClock(), retryPolicy: HTTPRetryPolicy = CloudKMSDefaults.retryPolicy,
        callTimeout: Duration = .seconds(60), serviceAccount: String? = nil
    ) throws(CloudKMSError) -> GCPKMSClient {
        GCPKMSClient(
            serviceAccount: try GoogleServiceAccount.resolve(path: serviceAccount ?? standins.serviceAccountPath),
            endpoint: standins.endpoint, transport: Self.transport(clock), clock: clock, retryPolicy: retryPolicy,
            callTimeout: callTimeout)
    }

    /// A Key Vault client of the stand-in with the client credentials it accepts (or `secret` instead).
    func azureClient(
        clock: any SignerClock = SystemClock(), retryPolicy: HTTPRetryPolicy = CloudKMSDefaults.retryPolicy,
        callTimeout: Duration = .seconds(60), secret: String? = nil
    ) throws(CloudKMSError) -> AzureKeyVaultClient {
        AzureKeyVaultClient(
            credentials: try AzureCredentials(
                tenantID: standins.azureTenant, clientID: standins.azureClientID,
                clientSecret: secret ?? standins.azureClientSecret, authority: standins.endpoint),
            transport: Self.transport(clock), clock: clock, retryPolicy: retryPolicy, callTimeout: callTimeout)
    }

    /// A signer of `service`'s key `name` on `clock`.
    func signer(
        _ service: LocalCloudKMS.Service, _ name: String, clock: any SignerClock = SystemClock(),
        retryPolicy: HTTPRetryPolicy = CloudKMSDefaults.retryPolicy, callTimeout: Duration = .seconds(60)
    ) async throws -> CloudSigner {
        switch service {
        case .gcp:
            .gcp(
                try await GCPKMSKeySigner.load(
                    name: name, client: try gcpClient(clock: clock, retryPolicy: retryPolicy, callTimeout: callTimeout))
            )
        case .azure:
            .azure(
                try await AzureKeyVaultKeySigner.load(
                    keyID: name,
                    client: try azureClient(clock: clock, retryPolicy: retryPolicy, callTimeout: callTimeout)))
        }
    }

    /// Loads `service`'s key `name`, returning the typed error.
    func load(_ service: LocalCloudKMS.Service, _ name: String, secret: String? = nil) async -> CloudKMSError? {
        do throws(CloudKMSError) {
            switch service {
            case .gcp: _ = try await GCPKMSKeySigner.load(name: name, client: try gcpClient())
            case .azure: _ = try await AzureKeyVaultKeySigner.load(keyID: name, client: try azureClient(secret: secret))
            }
            return nil
        } catch { return error }
    }

    /// Whether `text` holds none of the secrets: the service account's private key, the Azure client secret,
    /// any access token the stand-ins issue.
    func isFreeOfSecrets(_ text: String) -> Bool {
        let key =
            (try? JSONValue(
                parsing: Array((try? Data(contentsOf: URL(fileURLWithPath: standins.serviceAccountPath))) ?? Data())))?[
                "private_key"]?.stringValue ?? "-----BEGIN"
        let body = key.split(separator: "\n").dropFirst().first.map(String.init) ?? "MII"
        return !text.contains(standins.azureClientSecret) && !text.contains(body) && !text.contains("PRIVATE KEY")
            && !text.contains("gcp-token-") && !text.contains("azure-token-")
    }
}

/// A signer of either service, with its typed-error signing.
enum CloudSigner: Sendable {
    case gcp(GCPKMSKeySigner)
    case azure(AzureKeyVaultKeySigner)

    /// The signer.
    var signer: any PrehashSigner {
        switch self {
        case .gcp(let signer): signer
        case .azure(let signer): signer
        }
    }

    /// Signs, returning the typed error.
    func sign(_ digest: Digest32) async throws(CloudKMSError) -> RecoverableSignature {
        switch self {
        case .gcp(let signer): try await signer.signReportingKMSError(prehash: digest)
        case .azure(let signer): try await signer.signReportingKMSError(prehash: digest)
        }
    }

    /// A signature, or the typed error, as a task that never throws (for the manual clock's checks).
    func signing(_ digest: Digest32) -> Task<Result<RecoverableSignature, CloudKMSError>, Never> {
        Task {
            do throws(CloudKMSError) { return .success(try await sign(digest)) } catch { return .failure(error) }
        }
    }
}
