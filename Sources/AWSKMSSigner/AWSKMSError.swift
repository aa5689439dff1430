import EthereumPrimitives

/// Why an AWS KMS key could not be loaded or used.
///
/// Each case that concerns a key names it as the caller gave it (id, ARN or `alias/NAME`). No case carries,
/// and no description shows, a secret access key or a session token; text from the service is quoted
/// abbreviated. A `SignerError` from ``AWSKMSKeySigner`` carries one of these as its
/// `SignerError/underlying(_:error:)` error.
public enum AWSKMSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// KMS kept answering `ThrottlingException` until the retries or the caller's deadline ran out;
    /// `attempts` requests were made.
    case throttled(keyID: String, attempts: Int)
    /// The credentials may not do `operation` (`AccessDeniedException`): the IAM policy lacks `kms:Sign` or
    /// `kms:GetPublicKey` for the key.
    case accessDenied(keyID: String, operation: String, message: String)
    /// The key is disabled (`DisabledException`).
    case keyDisabled(keyID: String)
    /// The key is scheduled for deletion (`KMSInvalidStateException`, pending deletion).
    case keyPendingDeletion(keyID: String)
    /// The key is in another state that forbids the operation (`KMSInvalidStateException`).
    case keyUnavailable(keyID: String, message: String)
    /// No key has this id, ARN or alias (`NotFoundException`), or it is not in this account and region.
    case keyNotFound(keyID: String)
    /// The key is not an `ECC_SECG_P256K1` key for `SIGN_VERIFY`: carries what it is.
    case wrongKeySpec(keyID: String, keySpec: String, keyUsage: String)
    /// The session token has expired (`ExpiredTokenException`): new credentials are needed.
    case expiredCredentials(keyID: String)
    /// KMS does not accept the credentials (`UnrecognizedClientException`, `InvalidSignatureException`,
    /// `IncompleteSignatureException`); carries the exception's name.
    case rejectedCredentials(keyID: String, exception: String)
    /// No credentials were found: carries where they were looked for.
    case missingCredentials(String)
    /// The shared credentials file cannot be used: carries its path, the line (0 for the whole file) and why;
    /// never a value from it.
    case invalidCredentialsFile(path: String, line: Int, reason: String)
    /// No region: neither the option nor `AWS_REGION` / `AWS_DEFAULT_REGION` gives one.
    case missingRegion
    /// The region is not a region name (letters, digits and `-`).
    case invalidRegion(String)
    /// The endpoint is not a usable `https` URL (or `http` to a loopback host); carries where it came from and why.
    case invalidEndpoint(source: String, reason: String)
    /// The key id is empty or not a key id, key ARN or alias name.
    case invalidKeyID(String)
    /// Any other error KMS answered: the exception's name, the HTTP status and its message.
    case service(keyID: String?, exception: String, status: Int, message: String)
    /// No answer from KMS: the transport's error.
    case transport(keyID: String?, reason: String)
    /// The answer is not what KMS's API reference promises: the field and why.
    case malformedResponse(keyID: String?, field: String, reason: String)
    /// KMS's signature does not recover to the key's public key with either recovery id.
    case signatureMismatch(keyID: String)

    /// The key the error concerns, if any.
    public var keyID: String? {
        switch self {
        case .throttled(let id, _), .accessDenied(let id, _, _), .keyDisabled(let id), .keyPendingDeletion(let id),
            .keyUnavailable(let id, _), .keyNotFound(let id), .wrongKeySpec(let id, _, _),
            .expiredCredentials(let id), .rejectedCredentials(let id, _), .signatureMismatch(let id):
            id
        case .service(let id, _, _, _), .transport(let id, _), .malformedResponse(let id, _, _): id
        case .invalidKeyID(let id): id
        case .missingCredentials, .invalidCredentialsFile, .missingRegion, .invalidRegion, .invalidEndpoint: nil
        }
    }

    /// Whether repeating the same call later may succeed without anyone changing anything (throttling and
    /// lost answers); the others need a change of key, policy or credentials.
    public var isTransient: Bool {
        switch self {
        case .throttled, .transport: true
        case .service(_, _, let status, _): status >= 500
        default: false
        }
    }

    /// A one-line explanation naming the key; never a credential.
    public var description: String {
        switch self {
        case .throttled(let id, let attempts):
            "AWS KMS key \(Self.quoted(id)): throttled (ThrottlingException) after \(attempts) attempts"
        case .accessDenied(let id, let operation, let message):
            "AWS KMS key \(Self.quoted(id)): access denied for \(operation): \(Self.quoted(message))"
        case .keyDisabled(let id): "AWS KMS key \(Self.quoted(id)) is disabled"
        case .keyPendingDeletion(let id): "AWS KMS key \(Self.quoted(id)) is pending deletion"
        case .keyUnavailable(let id, let message):
            "AWS KMS key \(Self.quoted(id)) cannot be used in its state: \(Self.quoted(message))"
        case .keyNotFound(let id): "AWS KMS key \(Self.quoted(id)) not found (NotFoundException)"
        case .wrongKeySpec(let id, let spec, let usage):
            "AWS KMS key \(Self.quoted(id)) is \(Self.quoted(spec)) for \(Self.quoted(usage)); "
                + "an ECC_SECG_P256K1 key for SIGN_VERIFY is required"
        case .expiredCredentials(let id):
            "AWS KMS key \(Self.quoted(id)): the credentials have expired (ExpiredTokenException)"
        case .rejectedCredentials(let id, let exception):
            "AWS KMS key \(Self.quoted(id)): the credentials were refused (\(Self.quoted(exception)))"
        case .missingCredentials(let searched): "no AWS credentials: \(searched)"
        case .invalidCredentialsFile(let path, let line, let reason):
            "AWS credentials file \(Self.quoted(path))\(line > 0 ? " line \(line)" : ""): \(reason)"
        case .missingRegion: "no AWS region: give --aws-region, or set AWS_REGION or AWS_DEFAULT_REGION"
        case .invalidRegion(let region): "invalid AWS region \(Self.quoted(region))"
        case .invalidEndpoint(let source, let reason): "invalid AWS KMS endpoint from \(source): \(reason)"
        case .invalidKeyID(let id):
            "invalid AWS KMS key id \(Self.quoted(id)): expected a key id, a key ARN or alias/NAME"
        case .service(let id, let exception, let status, let message):
            "AWS KMS\(id.map { " key \(Self.quoted($0))" } ?? ""): \(Self.quoted(exception)) (HTTP \(status)): "
                + Self.quoted(message)
        case .transport(let id, let reason):
            "AWS KMS\(id.map { " key \(Self.quoted($0))" } ?? ""): no answer: \(reason)"
        case .malformedResponse(let id, let field, let reason):
            "AWS KMS\(id.map { " key \(Self.quoted($0))" } ?? ""): malformed answer, \(field): \(reason)"
        case .signatureMismatch(let id):
            "AWS KMS key \(Self.quoted(id)): the signature does not recover to the key's public key"
        }
    }

    /// `text`, abbreviated and quoted (it may come from the service or the command line).
    static func quoted(_ text: String) -> String { EchoedText.abbreviated(text).debugDescription }
}
