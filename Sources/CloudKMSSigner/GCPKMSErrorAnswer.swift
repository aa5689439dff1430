import EthereumPrimitives

/// An error answer of Google's REST APIs (`{"error": {"code": 403, "message": "…", "status":
/// "PERMISSION_DENIED"}}`), read into the ``CloudKMSError`` it means.
enum GCPKMSErrorAnswer {
    /// The error `answer` (not 2xx, not 429) about key version `key` means for `operation`.
    static func error(_ answer: CloudRESTCall.Answer, key: String, operation: String) -> CloudKMSError {
        let status = answer.response.status
        let detail = answer.json?["error"]
        let code = detail?["status"]?.stringValue ?? ""
        let message = detail?["message"]?.stringValue ?? ""
        switch (status, code) {
        case (401, _), (403, _), (_, "PERMISSION_DENIED"), (_, "UNAUTHENTICATED"):
            return .accessDenied(.googleCloudKMS, key: key, operation: operation, status: status, message: message)
        case (404, _), (_, "NOT_FOUND"):
            return .keyNotFound(.googleCloudKMS, key: key)
        case (_, "FAILED_PRECONDITION") where message.contains("state"):
            // "… is not in state ENABLED": disabled, destroyed or scheduled for destruction.
            return .keyDisabled(.googleCloudKMS, key: key, state: message)
        default:
            return .service(
                .googleCloudKMS, key: key, status: status, code: code.isEmpty ? "unnamed error" : code, message: message
            )
        }
    }
}
