import EthereumPrimitives
import RemoteSigner
import SignerKit

/// What signs for a command that signs through the dispatcher: a key (any key source), or an account of a
/// remote signer, whose answers the dispatcher verifies like a key's.
enum SigningBackend {
    /// A key: SignerKit hashes, the key signs digests.
    case key(any PrehashSigner)
    /// A remote signer's account: the remote signs whole requests.
    case remote(RemoteSignerBackend)

    /// The account it signs for.
    var address: Address {
        switch self {
        case .key(let key): key.address
        case .remote(let backend): backend.accounts[0]
        }
    }

    /// Registers it with `dispatcher`.
    func register(in dispatcher: RpcDispatcher) throws(RegistrationError) {
        switch self {
        case .key(let key): try dispatcher.register(key)
        case .remote(let backend): try dispatcher.register(backend)
        }
    }
}

/// The signing backend the key-source flags name: ``loadSigningKey(_:io:)``'s key, or the remote signer's
/// account (``RemoteSignerOptions``).
///
/// - Throws: as ``loadSigningKey(_:io:)`` and ``RemoteSignerOptions/backend(_:io:)``.
func loadSigningBackend(_ options: ParsedOptions, io: any CommandIO) async throws(CommandFailure) -> SigningBackend {
    if try SigningKeyOptions.checkPresent(options) == .remote {
        return .remote(try await RemoteSignerOptions.backend(options, io: io))
    }
    return .key(try await loadSigningKey(options, io: io))
}
