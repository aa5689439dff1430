import CloudKMSSigner
import EthereumPrimitives
import SignerKit
import SignerKitSupport

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
        return try await gcpSigner(
            name: name, credentials: options.value(gcpCredentials.name), endpoint: options.value(gcpEndpoint.name),
            environment: io.environment, allowInsecure: SecretFile.allowsInsecure(options))
    }

    /// The signer for Cloud KMS key version `name`: the service account from the key file `credentials` or
    /// `GOOGLE_APPLICATION_CREDENTIALS` (read as every key file is: a regular file of mode 0600 or stricter
    /// unless `allowInsecure`), the endpoint from `endpoint` or the environment.
    ///
    /// - Throws: 65 with one message naming the key (and never a credential).
    static func gcpSigner(
        name: String, credentials: String?, endpoint: String?, environment: [String: String], allowInsecure: Bool
    ) async throws(CommandFailure) -> GCPKMSKeySigner {
        let prefix = "\(CloudKMSProvider.googleCloudKMS.rawValue) key \(TextSafety.displayArgument(name))"
        let path = credentials ?? environment["GOOGLE_APPLICATION_CREDENTIALS"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path else {
            throw .invalidInput(
                "\(prefix): no Google Cloud KMS credentials: give --gcp-credentials or set "
                    + "GOOGLE_APPLICATION_CREDENTIALS (the path of a service-account key file)")
        }
        let account: GoogleServiceAccount
        do throws(CommandFailure) {
            let (contents, length) = try SecretFile.read(path, maximumSize: 64 << 10, allowInsecure: allowInsecure)
            defer { contents.wipe() }
            guard length <= 64 << 10 else { throw .invalidInput("\(path): larger than 64 KiB") }
            var json = contents.withUnsafeBytes { Array($0.prefix(length)) }
            defer { json.withUnsafeMutableBytes { MemoryWiping.wipe($0) } }
            do throws(CloudKMSError) { account = try GoogleServiceAccount(json: json, source: path) } catch {
                throw .invalidInput(error.description)
            }
        } catch {
            throw .invalidInput("\(prefix): \(error.message)")
        }
        do throws(CloudKMSError) {
            let client = GCPKMSClient(
                serviceAccount: account, endpoint: try GCPKMSClient.endpoint(option: endpoint, environment: environment)
            )
            return try await GCPKMSKeySigner.load(name: name, client: client)
        } catch {
            throw .invalidInput(message(error, key: name))
        }
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
