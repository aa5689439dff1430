import CloudKMSSigner
import SignerKit
import SignerKitService

extension ServeKeys {
    /// The signer of a `gcpKMS` or `azureKeyVault` entry, loaded as `--gcp-kms-key` and `--azure-key-id` load
    /// theirs (credentials from `environment`); `nil` for the other kinds. Errors name the entry's path in
    /// the configuration and the key, never a credential.
    static func cloudSigner(
        _ source: ServiceKeySource, path: String, environment: [String: String], allowInsecure: Bool
    ) async throws(CommandFailure) -> (any PrehashSigner)? {
        let key: String
        switch source {
        case .gcpKMS(let name, _, _): key = name
        case .azureKeyVault(let keyID): key = keyID
        default: return nil
        }
        do throws(CommandFailure) {
            if case .gcpKMS(let name, let credentialsFile, let endpointURL) = source {
                return try await CloudKMSOptions.gcpSigner(
                    name: name, credentials: credentialsFile, endpoint: endpointURL, environment: environment,
                    allowInsecure: allowInsecure)
            }
            do throws(CloudKMSError) {
                return try await CloudKMSOptions.azureSigner(keyID: key, environment: environment)
            } catch {
                throw .invalidInput(CloudKMSOptions.message(error, key: key))
            }
        } catch {
            throw .invalidInput("configuration: \(path): \(error.message)")
        }
    }
}
