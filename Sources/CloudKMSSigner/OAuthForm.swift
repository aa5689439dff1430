import EthereumPrimitives
import Foundation
import SignerKitHTTP

/// The OAuth2 token request both services use (RFC 6749 §4.4 client credentials, RFC 7523 JWT bearer): an
/// `application/x-www-form-urlencoded` POST answered by `{"access_token", "expires_in"}` or by
/// `{"error", "error_description"}`.
enum OAuthForm {
    /// Characters left as they are in a form value (RFC 3986 unreserved).
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `name=value&…`, each value percent-encoded.
    static func encode(_ pairs: [(String, String)]) -> [UInt8] {
        let text = pairs.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")"
        }.joined(separator: "&")
        return Array(text.utf8)
    }

    /// Posts `form` to `url` and reads the token.
    ///
    /// - Throws: ``CloudKMSError/tokenRefused(_:status:error:message:)`` for an error answer (its `error` and
    ///   `error_description`, never the request), the call's transport or throttling errors,
    ///   ``CloudKMSError/malformedResponse(_:key:field:reason:)``.
    static func exchange(
        _ form: [UInt8], at url: URL, rest: CloudRESTCall, deadline: ContinuousClock.Instant
    ) async throws(CloudKMSError) -> AccessToken {
        let answer = try await rest.send(
            "POST", url,
            headers: [
                HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
                HTTPHeader("Accept", "application/json"),
            ], body: form, key: nil, deadline: deadline)
        guard answer.response.isSuccess else {
            throw .tokenRefused(
                rest.provider, status: answer.response.status,
                error: answer.json?["error"]?.stringValue ?? "unnamed error",
                message: answer.json?["error_description"]?.stringValue ?? "")
        }
        return try AccessToken.parse(answer.json, provider: rest.provider)
    }
}
