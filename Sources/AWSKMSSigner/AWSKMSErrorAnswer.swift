import EthereumPrimitives
import SignerKitHTTP

/// An error answer of KMS's JSON protocol (`{"__type": "…Exception", "message": "…"}`, the name also in
/// `X-Amzn-ErrorType`), read into the ``AWSKMSError`` it means.
struct AWSKMSErrorAnswer {
    /// The exception's name without its namespace (`NotFoundException`).
    let exception: String
    /// The error the answer means.
    let error: AWSKMSError

    /// Reads `response`, a non-2xx answer to `operation` about `keyID`.
    init(_ response: HTTPResponse, keyID: String?, operation: String) {
        let body = try? JSONValue(parsing: response.body)
        let rawType = body?["__type"]?.stringValue ?? response.header("x-amzn-errortype") ?? ""
        // "com.amazonaws.kms#NotFoundException" and "NotFoundException:http://…" both name NotFoundException.
        let afterHash = rawType.split(separator: "#").last.map(String.init) ?? rawType
        exception = afterHash.split(separator: ":").first.map(String.init) ?? afterHash
        let message = body?["message"]?.stringValue ?? body?["Message"]?.stringValue ?? ""
        let key = keyID ?? "-"
        switch exception {
        case "ThrottlingException", "ThrottledException", "TooManyRequestsException", "RequestLimitExceeded":
            error = .throttled(keyID: key, attempts: 1)
        case "AccessDeniedException":
            error = .accessDenied(keyID: key, operation: "kms:\(operation)", message: message)
        case "DisabledException":
            error = .keyDisabled(keyID: key)
        case "KMSInvalidStateException" where message.lowercased().contains("pending deletion"):
            error = .keyPendingDeletion(keyID: key)
        case "KMSInvalidStateException":
            error = .keyUnavailable(keyID: key, message: message)
        case "NotFoundException":
            error = .keyNotFound(keyID: key)
        case "ExpiredTokenException":
            error = .expiredCredentials(keyID: key)
        case "UnrecognizedClientException", "InvalidSignatureException", "IncompleteSignatureException",
            "InvalidClientTokenId", "SignatureDoesNotMatch":
            error = .rejectedCredentials(keyID: key, exception: exception)
        case "InvalidKeyUsageException" where operation == "Sign",
            "UnsupportedOperationException" where operation == "Sign":
            error = .wrongKeySpec(keyID: key, keySpec: "unknown", keyUsage: "\(exception): \(message)")
        default:
            error = .service(
                keyID: keyID, exception: exception.isEmpty ? "unnamed error" : exception, status: response.status,
                message: message)
        }
    }

    /// Whether KMS asked to slow down.
    var isThrottling: Bool {
        if case .throttled = error { return true }
        return false
    }
}
