import EthereumPrimitives

/// The two cloud key services of this module, as messages name them.
public enum CloudKMSProvider: String, Sendable, Equatable {
    /// Google Cloud KMS (`EC_SIGN_SECP256K1_SHA256` key versions).
    case googleCloudKMS = "Google Cloud KMS"
    /// Azure Key Vault (`EC` keys on curve `P-256K`, signed with `ES256K`).
    case azureKeyVault = "Azure Key Vault"
}

/// Why a Google Cloud KMS or Azure Key Vault key could not be loaded or used.
///
/// Each case that concerns a key names it as the caller gave it (key version name or key id URL). No case
/// carries, and no description shows, a private key, a client secret or an access token; text from the
/// service or the command line is quoted abbreviated. A `SignerError` from ``GCPKMSKeySigner`` or
/// ``AzureKeyVaultKeySigner`` carries one of these as its `SignerError/underlying(_:error:)` error.
public enum CloudKMSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The service kept answering 429 until the retries or the caller's deadline ran out; `attempts` requests
    /// were made.
    case throttled(CloudKMSProvider, key: String, attempts: Int)
    /// The service refused the caller (HTTP 401 or 403): the identity lacks the permission for `operation`,
    /// or its token is not accepted.
    case accessDenied(CloudKMSProvider, key: String, operation: String, status: Int, message: String)
    /// The key (version) exists but is not enabled: `state` says what the service reported.
    case keyDisabled(CloudKMSProvider, key: String, state: String)
    /// No such key (version), or not visible to the caller (HTTP 404).
    case keyNotFound(CloudKMSProvider, key: String)
    /// The key is not a secp256k1 signing key: carries what it is (algorithm, or key type and curve).
    case wrongAlgorithm(CloudKMSProvider, key: String, found: String)
    /// No credentials were found: carries where they were looked for.
    case missingCredentials(CloudKMSProvider, String)
    /// The credentials cannot be used: where they came from, the field at fault and why; never a value of a
    /// secret field.
    case invalidCredentials(CloudKMSProvider, source: String, field: String, reason: String)
    /// The token endpoint gave no access token: its HTTP status, OAuth2 `error` code and description.
    case tokenRefused(CloudKMSProvider, status: Int, error: String, message: String)
    /// The key name or key id is not one: carries it and the field at fault.
    case invalidKeyName(CloudKMSProvider, name: String, field: String, reason: String)
    /// An endpoint is not a usable `https` URL (or `http` to a loopback host); carries where it came from and
    /// why.
    case invalidEndpoint(CloudKMSProvider, source: String, reason: String)
    /// Any other error answer: the HTTP status, the service's error code and its message.
    case service(CloudKMSProvider, key: String?, status: Int, code: String, message: String)
    /// No answer from the service: the transport's error.
    case transport(CloudKMSProvider, key: String?, reason: String)
    /// The answer is not what the service's REST reference promises: the field and why.
    case malformedResponse(CloudKMSProvider, key: String?, field: String, reason: String)
    /// A CRC32C the answer carries (or the service's check of ours) does not match: the field.
    case checksumMismatch(CloudKMSProvider, key: String, field: String)
    /// The service's signature does not recover to the key's public key with either recovery id.
    case signatureMismatch(CloudKMSProvider, key: String)

    /// The service the error comes from.
    public var provider: CloudKMSProvider {
        switch self {
        case .throttled(let p, _, _), .accessDenied(let p, _, _, _, _), .keyDisabled(let p, _, _),
            .keyNotFound(let p, _), .wrongAlgorithm(let p, _, _), .missingCredentials(let p, _),
            .invalidCredentials(let p, _, _, _), .tokenRefused(let p, _, _, _), .invalidKeyName(let p, _, _, _),
            .invalidEndpoint(let p, _, _), .service(let p, _, _, _, _), .transport(let p, _, _),
            .malformedResponse(let p, _, _, _), .checksumMismatch(let p, _, _), .signatureMismatch(let p, _):
            p
        }
    }

    /// The key the error concerns, if any.
    public var key: String? {
        switch self {
        case .throttled(_, let key, _), .accessDenied(_, let key, _, _, _), .keyDisabled(_, let key, _),
            .keyNotFound(_, let key), .wrongAlgorithm(_, let key, _), .checksumMismatch(_, let key, _),
            .signatureMismatch(_, let key), .invalidKeyName(_, let key, _, _):
            key
        case .service(_, let key, _, _, _), .transport(_, let key, _), .malformedResponse(_, let key, _, _): key
        case .missingCredentials, .invalidCredentials, .tokenRefused, .invalidEndpoint: nil
        }
    }

    /// Whether repeating the same call later may succeed without anyone changing anything (throttling, lost
    /// answers, server errors, a checksum spoilt in transit); the others need a change of key, role or
    /// credentials.
    public var isTransient: Bool {
        switch self {
        case .throttled, .transport, .checksumMismatch: true
        case .service(_, _, let status, _, _): status >= 500
        default: false
        }
    }

    /// A one-line explanation naming the key; never a credential.
    public var description: String {
        let named = { (p: CloudKMSProvider, key: String?) -> String in
            "\(p.rawValue)\(key.map { " key \(Self.quoted($0))" } ?? "")"
        }
        switch self {
        case .throttled(let p, let key, let attempts):
            return "\(named(p, key)): throttled (HTTP 429) after \(attempts) attempts"
        case .accessDenied(let p, let key, let operation, let status, let message):
            return "\(named(p, key)): access denied for \(operation) (HTTP \(status)): \(Self.quoted(message))"
        case .keyDisabled(let p, let key, let state): return "\(named(p, key)) is not enabled: \(Self.quoted(state))"
        case .keyNotFound(let p, let key): return "\(named(p, key)) not found"
        case .wrongAlgorithm(let p, let key, let found):
            let wanted = p == .googleCloudKMS ? "EC_SIGN_SECP256K1_SHA256" : "an EC key on curve P-256K for ES256K"
            return "\(named(p, key)) is \(Self.quoted(found)); \(wanted) is required"
        case .missingCredentials(let p, let searched): return "no \(p.rawValue) credentials: \(searched)"
        case .invalidCredentials(let p, let source, let field, let reason):
            return "\(p.rawValue) credentials from \(Self.quoted(source)): \(field): \(reason)"
        case .tokenRefused(let p, let status, let error, let message):
            return "\(p.rawValue): no access token (HTTP \(status), \(Self.quoted(error))): \(Self.quoted(message))"
        case .invalidKeyName(let p, let name, let field, let reason):
            return "invalid \(p.rawValue) key \(Self.quoted(name)): \(field): \(reason)"
        case .invalidEndpoint(let p, let source, let reason):
            return "invalid \(p.rawValue) endpoint from \(source): \(reason)"
        case .service(let p, let key, let status, let code, let message):
            return "\(named(p, key)): \(Self.quoted(code)) (HTTP \(status)): \(Self.quoted(message))"
        case .transport(let p, let key, let reason): return "\(named(p, key)): no answer: \(reason)"
        case .malformedResponse(let p, let key, let field, let reason):
            return "\(named(p, key)): malformed answer, \(field): \(reason)"
        case .checksumMismatch(let p, let key, let field):
            return "\(named(p, key)): the CRC32C check of \(field) failed (corrupted in transit)"
        case .signatureMismatch(let p, let key):
            return "\(named(p, key)): the signature does not recover to the key's public key"
        }
    }

    /// `text`, abbreviated and quoted (it may come from the service or the command line).
    static func quoted(_ text: String) -> String { EchoedText.abbreviated(text).debugDescription }
}
