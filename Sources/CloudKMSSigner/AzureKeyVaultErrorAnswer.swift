import EthereumPrimitives

/// An error answer of Key Vault's REST API (`{"error": {"code": "Forbidden", "message": "…", "innererror":
/// {"code": "…"}}}`), read into the ``CloudKMSError`` it means.
enum AzureKeyVaultErrorAnswer {
    /// The error `answer` (not 2xx, not 429) about key `key` means for `operation`.
    static func error(_ answer: CloudRESTCall.Answer, key: String, operation: String) -> CloudKMSError {
        let status = answer.response.status
        let detail = answer.json?["error"]
        let code = detail?["code"]?.stringValue ?? ""
        let inner = detail?["innererror"]?["code"]?.stringValue ?? ""
        let message = detail?["message"]?.stringValue ?? ""
        // "Operation sign is not allowed on a disabled key." comes as 403 Forbidden, its inner code KeyDisabled.
        if inner == "KeyDisabled" || code == "KeyDisabled" || message.lowercased().contains("disabled key") {
            return .keyDisabled(.azureKeyVault, key: key, state: message.isEmpty ? "disabled" : message)
        }
        switch status {
        case 401, 403:
            return .accessDenied(.azureKeyVault, key: key, operation: operation, status: status, message: message)
        case 404:
            return .keyNotFound(.azureKeyVault, key: key)
        default:
            return .service(
                .azureKeyVault, key: key, status: status, code: code.isEmpty ? "unnamed error" : code, message: message)
        }
    }
}
