import RemoteSigner
import SignerKitService

/// The `remoteSigner` entries of a service configuration, loaded as backends of the service's dispatcher.
enum ServeRemoteSigners {
    /// The backend of one `remoteSigner` entry: its listed `accounts` (each checked to be held by the remote),
    /// or every account the remote lists; the bearer token from `tokenFile` (a secret file) when named.
    ///
    /// - Throws: 65 naming the entry's path and the remote (never the token) when it cannot be used.
    static func backend(_ source: ServiceKeySource, path: String, allowInsecure: Bool) async throws(CommandFailure)
        -> RemoteSignerBackend
    {
        guard case .remoteSigner(let url, let kindText, let accounts, let tokenFile) = source,
            let kind = RemoteSignerKind(rawValue: kindText)
        else {
            throw .invalidInput("configuration: \(path): not a remoteSigner entry")
        }
        do throws(CommandFailure) {
            let token = try tokenFile.map { (file) throws(CommandFailure) in
                try RemoteSignerOptions.token(file: file, allowInsecure: allowInsecure)
            }
            do throws(RemoteSignerError) {
                let client = RemoteSignerClient(endpoint: try RemoteSignerEndpoint(url), kind: kind, token: token)
                return try await RemoteSignerBackend.connect(client, accounts: accounts)
            } catch {
                throw CommandFailure.invalidInput(error.description)
            }
        } catch {
            throw .invalidInput("configuration: \(path): \(error.message)")
        }
    }
}
