import CloudKMSSigner
import SignerKit
import SignerKitService

extension ServeKeys {
    /// The signer of a `gcpKMS` or `azureKeyVault` entry, loaded as `--gcp-kms-key` and `--azure-key-id` load
    /// theirs (credentials from `environment`); `nil` for the other kinds. Errors name the entry's path in
    /// the configuration and the key, never a credential.
    static func cloudSigner(
        _ source: ServiceKeySource, path: String, environment: [String: String]
    ) async throws(CommandFailure) -> (any PrehashSigner)? {
        let key: String
        switch source {
        case .gcpKMS(let name, _, _): key = name
        case .azureKeyVault(let keyID): key = keyID
        default: return nil
        }
        do throws(CloudKMSError) {
            if case .gcpKMS(let name, let credentialsFile, let endpointURL) = source {
                return try await CloudKMSOptions.gcpSigner(
                    name: name, credentials: credentialsFile, endpoint: endpointURL, environment: environment)
            }
            return try await CloudKMSOptions.azureSigner(keyID: key, environment: environment)
        } catch {
            throw .invalidInput("configuration: \(path): \(CloudKMSOptions.message(error, key: key))")
        }
    }
}
