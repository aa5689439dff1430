import CloudKMSSigner
import EthereumPrimitives
import SignerKit

/// The Google Cloud KMS and Azure Key Vault key sources of the signing commands (docs/KMS.md):
/// `--gcp-kms-key NAME` (a key version's resource name) with `--gcp-credentials FILE` and `--gcp-kms-endpoint
/// URL` (else `GOOGLE_APPLICATION_CREDENTIALS` and `GOOGLE_CLOUD_KMS_ENDPOINT`); `--azure-key-id URL` with the
/// client credentials from `AZURE_TENANT_ID`, `AZURE_CLIENT_ID`, `AZURE_CLIENT_SECRET` (authority
/// `AZURE_AUTHORITY_HOST`). Never a credential on the command line.
enum CloudKMSOptions {
    /// `--gcp-kms-key NAME`.
    static let gcpKey = FlagSpec.option(
        "--gcp-kms-key", value: "NAME",
        help: "Google Cloud KMS key version (EC_SIGN_SECP256K1_SHA256): projects/…/cryptoKeyVersions/V")
    /// `--gcp-credentials FILE`.
    static let gcpCredentials = FlagSpec.option(
        "--gcp-credentials", value: "FILE", help: "service-account key file (else $GOOGLE_APPLICATION_CREDENTIALS)")
    /// `--gcp-kms-endpoint URL`.
    static let gcpEndpoint = FlagSpec.option(
        "--gcp-kms-endpoint", value: "URL",
        help: "Cloud KMS endpoint (else $GOOGLE_CLOUD_KMS_ENDPOINT; plain http only to loopback)")
    /// `--azure-key-id URL`.
    static let azureKeyID = FlagSpec.option(
        "--azure-key-id", value: "URL",
        help: "Azure Key Vault key (EC, P-256K): https://VAULT.vault.azure.net/keys/NAME/VERSION")

    /// The four flags.
    static let flags = [gcpKey, gcpCredentials, gcpEndpoint, azureKeyID]

    /// The signer for the key `--gcp-kms-key` names, after one `getPublicKey`.
    ///
    /// - Throws: 65 with one message naming the key (and never a credential) when the key cannot be used.
    static func gcpSigner(_ options: ParsedOptions, io: any CommandIO) async throws(CommandFailure) -> GCPKMSKeySigner {
        guard let name = options.value(gcpKey.name) else {
            throw .usage("missing \(gcpKey.name)", command: options.commandPath)
        }
        do throws(CloudKMSError) {
            return try await gcpSigner(
                name: name, credentials: options.value(gcpCredentials.name), endpoint: options.value(gcpEndpoint.name),
                environment: io.environment)
        } catch {
            throw .invalidInput(message(error, key: name))
        }
    }

    /// The signer for Cloud KMS key version `name`: the service account from `credentials` or the
    /// environment, the endpoint from `endpoint` or the environment.
    static func gcpSigner(
        name: String, credentials: String?, endpoint: String?, environment: [String: String]
    ) async throws(CloudKMSError) -> GCPKMSKeySigner {
        let client = GCPKMSClient(
            serviceAccount: try GoogleServiceAccount.resolve(path: credentials, environment: environment),
            endpoint: try GCPKMSClient.endpoint(option: endpoint, environment: environment))
        return try await GCPKMSKeySigner.load(name: name, client: client)
    }

    /// The signer for the key `--azure-key-id` names, after one `get key`.
    ///
    /// - Throws: 65 with one message naming the key (and never a credential) when the key cannot be used.
    static func azureSigner(_ options: ParsedOptions, io: any CommandIO) async throws(CommandFailure)
        -> AzureKeyVaultKeySigner
    {
        guard let id = options.value(azureKeyID.name) else {
            throw .usage("missing \(azureKeyID.name)", command: options.commandPath)
        }
        do throws(CloudKMSError) {
            return try await azureSigner(keyID: id, environment: io.environment)
        } catch {
            throw .invalidInput(message(error, key: id))
        }
    }

    /// The signer for the Key Vault key `keyID`, with the client credentials of `environment`.
    static func azureSigner(keyID: String, environment: [String: String]) async throws(CloudKMSError)
        -> AzureKeyVaultKeySigner
    {
        let client = AzureKeyVaultClient(credentials: try AzureCredentials.resolve(environment: environment))
        return try await AzureKeyVaultKeySigner.load(keyID: keyID, client: client)
    }

    /// The error's text, naming the key even when the error itself does not (missing credentials, a token
    /// refused).
    static func message(_ error: CloudKMSError, key: String) -> String {
        error.key != nil
            ? error.description : "\(error.provider.rawValue) key \(TextSafety.displayArgument(key)): \(error)"
    }
}
