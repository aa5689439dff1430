import EthereumPrimitives
import Foundation
import SignerKitCurl
import SignerKitHTTP

/// Key Vault's REST API (`api-version=7.4`) on an `HTTPTransport`, for the two calls SignerKit makes: `get
/// key` and `sign`. Each carries an access token for `https://vault.azure.net/.default` from the client
/// credentials, cached until shortly before it expires on ``clock``; a 429 is repeated after the retry
/// policy's back-off within the call's deadline; every other error is returned at once as a
/// ``CloudKMSError``.
public struct AzureKeyVaultClient: Sendable {
    /// The identity every call is made as.
    public let credentials: AzureCredentials
    /// Sends each attempt (libcurl by default).
    public let transport: any HTTPTransport
    /// What every wait, deadline and token expiry reads.
    public let clock: any SignerClock
    /// Retries after throttling (and after an attempt that got no answer), with their back-off.
    public let retryPolicy: HTTPRetryPolicy
    /// The longest a call may take, back-off included, when the caller gives no deadline.
    public let callTimeout: Duration
    /// The longest one attempt may take.
    public let attemptTimeout: Duration
    /// The access token, shared by the copies of this client.
    let tokens: AccessTokenCache

    /// The API version of every call.
    public static let apiVersion = "7.4"
    /// The scope asked for: Key Vault's data plane.
    public static let scope = "https://vault.azure.net/.default"

    /// A client calling Key Vault as `credentials`.
    public init(
        credentials: AzureCredentials, transport: any HTTPTransport = CurlHTTPTransport.shared,
        clock: any SignerClock = SystemClock(), retryPolicy: HTTPRetryPolicy = CloudKMSDefaults.retryPolicy,
        callTimeout: Duration = .seconds(30), attemptTimeout: Duration = .seconds(10)
    ) {
        self.credentials = credentials
        self.transport = transport
        self.clock = clock
        self.retryPolicy = retryPolicy
        self.callTimeout = callTimeout
        self.attemptTimeout = attemptTimeout
        let rest = CloudRESTCall(
            provider: .azureKeyVault, transport: transport, clock: clock, retryPolicy: retryPolicy,
            attemptTimeout: attemptTimeout)
        tokens = AccessTokenCache(clock: clock) { () throws(CloudKMSError) in
            guard let url = credentials.tokenURL else {
                throw .invalidCredentials(
                    .azureKeyVault, source: "AZURE_TENANT_ID", field: "tenant", reason: "does not make a URL")
            }
            let form = OAuthForm.encode([
                ("grant_type", "client_credentials"), ("client_id", credentials.clientID),
                ("client_secret", credentials.clientSecret), ("scope", Self.scope),
            ])
            return try await OAuthForm.exchange(
                form, at: url, rest: rest,
                deadline: CallerDeadline.bounding(clock.now.advanced(by: callTimeout), on: clock))
        }
    }

    /// A key's public half as `get key` answers it (its JWK).
    public struct KeyAnswer: Sendable, Equatable {
        /// `kty`: `EC`, `EC-HSM`, `RSA`, …
        public let keyType: String
        /// `crv`: `P-256K`, `P-256`, … (empty for a key without one).
        public let curve: String
        /// `x` and `y`, 32 bytes each (empty for a key of another type).
        public let x: [UInt8], y: [UInt8]
        /// `key_ops` (empty when absent).
        public let operations: [String]
        /// `attributes.enabled` (`true` when absent).
        public let enabled: Bool
    }

    /// `GET {vault}/keys/{name}/{version}`.
    ///
    /// - Throws: ``CloudKMSError``.
    public func key(_ id: AzureKeyID) async throws(CloudKMSError) -> KeyAnswer {
        let answer = try await call("GET", id, path: id.path, body: nil, operation: "keys/get")
        guard let jwk = answer["key"], jwk.objectValue != nil else {
            throw .malformedResponse(.azureKeyVault, key: id.text, field: "key", reason: "missing or not an object")
        }
        let keyType = jwk["kty"]?.stringValue ?? ""
        let curve = jwk["crv"]?.stringValue ?? ""
        var x: [UInt8] = []
        var y: [UInt8] = []
        if keyType.hasPrefix("EC") {
            for field in ["x", "y"] {
                guard let text = jwk[field]?.stringValue, let bytes = Base64URL.decode(text), bytes.count == 32 else {
                    throw .malformedResponse(
                        .azureKeyVault, key: id.text, field: "key.\(field)", reason: "not 32 bytes of base64url")
                }
                if field == "x" { x = bytes } else { y = bytes }
            }
        }
        return KeyAnswer(
            keyType: keyType, curve: curve, x: x, y: y,
            operations: jwk["key_ops"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            enabled: answer["attributes"]?["enabled"] != .bool(false))
    }

    /// `POST {vault}/keys/{name}/{version}/sign` with `ES256K` over the 32-byte `digest`; returns r‖s (64
    /// bytes: JWS form, not DER).
    ///
    /// - Throws: ``CloudKMSError``.
    public func signDigest(
        _ digest: Digest32, id: AzureKeyID, deadline: ContinuousClock.Instant? = nil
    ) async throws(CloudKMSError) -> [UInt8] {
        let body: JSONValue = ["alg": "ES256K", "value": .string(Base64URL.encode(digest.bytes))]
        let answer = try await call(
            "POST", id, path: id.path + "/sign", body: body, operation: "keys/sign", deadline: deadline)
        guard let text = answer["value"]?.stringValue, let bytes = Base64URL.decode(text), bytes.count == 64 else {
            throw .malformedResponse(.azureKeyVault, key: id.text, field: "value", reason: "not 64 bytes of base64url")
        }
        return bytes
    }

    /// One call: `method` on `{vault}{path}?api-version=7.4` with the JSON `body` (a refused token is
    /// replaced once).
    private func call(
        _ method: String, _ id: AzureKeyID, path: String, body: JSONValue?, operation: String,
        deadline: ContinuousClock.Instant? = nil
    ) async throws(CloudKMSError) -> JSONValue {
        let deadline = CallerDeadline.bounding(deadline ?? clock.now.advanced(by: callTimeout), on: clock)
        guard let url = URL(string: "\(id.vault)\(path)?api-version=\(Self.apiVersion)") else {
            throw .invalidKeyName(.azureKeyVault, name: id.text, field: "path", reason: "does not make a URL")
        }
        let rest = CloudRESTCall(
            provider: .azureKeyVault, transport: transport, clock: clock, retryPolicy: retryPolicy,
            attemptTimeout: attemptTimeout)
        for attempt in 0..<2 {
            let token = try await tokens.token()
            var headers = [HTTPHeader("Authorization", "Bearer \(token)")]
            if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
            let answer = try await rest.send(
                method, url, headers: headers, body: body.map { Array($0.serialized.utf8) }, key: id.text,
                deadline: deadline)
            if answer.response.isSuccess {
                guard let json = answer.json, json.objectValue != nil else {
                    throw .malformedResponse(.azureKeyVault, key: id.text, field: "body", reason: "not a JSON object")
                }
                return json
            }
            if answer.response.status == 401, attempt == 0 {
                tokens.invalidate()
                continue
            }
            throw AzureKeyVaultErrorAnswer.error(answer, key: id.text, operation: operation)
        }
        throw .accessDenied(
            .azureKeyVault, key: id.text, operation: operation, status: 401, message: "the access token was refused")
    }
}
