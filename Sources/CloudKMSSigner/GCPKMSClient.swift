import EthereumPrimitives
import Foundation
import SignerKitCurl
import SignerKitHTTP

/// Cloud KMS's REST API (`v1`) on an `HTTPTransport`, for the two calls SignerKit makes:
/// `cryptoKeyVersions.getPublicKey` and `cryptoKeyVersions.asymmetricSign`. Each carries an OAuth2 access
/// token of the service account, cached until shortly before it expires on ``clock``; a 429 is repeated after
/// the retry policy's back-off within the call's deadline; every other error is returned at once as a
/// ``CloudKMSError``.
public struct GCPKMSClient: Sendable {
    /// The API's base URL: `https://cloudkms.googleapis.com` unless overridden.
    public let endpoint: URL
    /// The identity every call is made as.
    public let serviceAccount: GoogleServiceAccount
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
    /// The wall time the JWT's `iat` is read from (the injected clock is monotonic).
    let wallTime: @Sendable () -> Date
    /// The access token, shared by the copies of this client.
    let tokens: AccessTokenCache

    /// The production endpoint.
    public static let defaultEndpoint: URL = {
        guard let url = URL(string: "https://cloudkms.googleapis.com") else { preconditionFailure("bad endpoint") }
        return url
    }()

    /// A client calling `endpoint` as `serviceAccount`.
    public init(
        serviceAccount: GoogleServiceAccount, endpoint: URL = GCPKMSClient.defaultEndpoint,
        transport: any HTTPTransport = CurlHTTPTransport.shared, clock: any SignerClock = SystemClock(),
        retryPolicy: HTTPRetryPolicy = CloudKMSDefaults.retryPolicy, callTimeout: Duration = .seconds(30),
        attemptTimeout: Duration = .seconds(10), wallTime: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.endpoint = endpoint
        self.serviceAccount = serviceAccount
        self.transport = transport
        self.clock = clock
        self.retryPolicy = retryPolicy
        self.callTimeout = callTimeout
        self.attemptTimeout = attemptTimeout
        self.wallTime = wallTime
        let rest = CloudRESTCall(
            provider: .googleCloudKMS, transport: transport, clock: clock, retryPolicy: retryPolicy,
            attemptTimeout: attemptTimeout)
        tokens = AccessTokenCache(clock: clock) { () throws(CloudKMSError) in
            let form = OAuthForm.encode([
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                ("assertion", try serviceAccount.assertion(issuedAt: wallTime())),
            ])
            return try await OAuthForm.exchange(
                form, at: serviceAccount.tokenURI, rest: rest,
                deadline: CallerDeadline.bounding(clock.now.advanced(by: callTimeout), on: clock))
        }
    }

    /// The endpoint from `option`, else `GOOGLE_CLOUD_KMS_ENDPOINT`, else the production one.
    ///
    /// - Throws: ``CloudKMSError/invalidEndpoint(_:source:reason:)`` naming the option or variable.
    public static func endpoint(
        option: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CloudKMSError) -> URL {
        if let option { return try CloudEndpoint.url(option, source: "--gcp-kms-endpoint", provider: .googleCloudKMS) }
        if let value = environment["GOOGLE_CLOUD_KMS_ENDPOINT"], !value.isEmpty {
            return try CloudEndpoint.url(value, source: "GOOGLE_CLOUD_KMS_ENDPOINT", provider: .googleCloudKMS)
        }
        return defaultEndpoint
    }

    /// A key version's public key as `getPublicKey` answers it.
    public struct PublicKeyAnswer: Sendable, Equatable {
        /// The PEM `SubjectPublicKeyInfo`.
        public let pem: String
        /// `EC_SIGN_SECP256K1_SHA256`, `EC_SIGN_P256_SHA256`, …
        public let algorithm: String
    }

    /// `getPublicKey` of the key version `name`; the PEM's `pemCrc32c` checked.
    ///
    /// - Throws: ``CloudKMSError``.
    public func publicKey(name: String) async throws(CloudKMSError) -> PublicKeyAnswer {
        let answer = try await call("GET", "\(name)/publicKey", body: nil, key: name, operation: "getPublicKey")
        guard let pem = answer["pem"]?.stringValue, !pem.isEmpty else {
            throw .malformedResponse(.googleCloudKMS, key: name, field: "pem", reason: "missing or not a string")
        }
        guard let algorithm = answer["algorithm"]?.stringValue, !algorithm.isEmpty else {
            throw .malformedResponse(.googleCloudKMS, key: name, field: "algorithm", reason: "missing or not a string")
        }
        if let crc = answer["pemCrc32c"] {
            guard Self.crc(crc) == CRC32C.checksum(pem.utf8) else {
                throw .checksumMismatch(.googleCloudKMS, key: name, field: "pem")
            }
        }
        return PublicKeyAnswer(pem: pem, algorithm: algorithm)
    }

    /// `asymmetricSign` of the 32-byte SHA-256 `digest` with the key version `name`; returns the DER
    /// signature. The request carries `digestCrc32c`; the answer must confirm it (`verifiedDigestCrc32c`) and
    /// its `signatureCrc32c` must match the signature.
    ///
    /// - Throws: ``CloudKMSError``.
    public func signDigest(
        _ digest: Digest32, name: String, deadline: ContinuousClock.Instant? = nil
    ) async throws(CloudKMSError) -> [UInt8] {
        let body: JSONValue = [
            "digest": ["sha256": .string(Data(digest.bytes).base64EncodedString())],
            "digestCrc32c": .string(String(CRC32C.checksum(digest.bytes))),
        ]
        let answer = try await call(
            "POST", "\(name):asymmetricSign", body: body, key: name, operation: "asymmetricSign", deadline: deadline)
        guard let text = answer["signature"]?.stringValue, let data = Data(base64Encoded: text), !data.isEmpty else {
            throw .malformedResponse(.googleCloudKMS, key: name, field: "signature", reason: "missing or not base64")
        }
        guard answer["verifiedDigestCrc32c"] == .bool(true) else {
            throw .checksumMismatch(.googleCloudKMS, key: name, field: "digest (verifiedDigestCrc32c)")
        }
        if let crc = answer["signatureCrc32c"] {
            guard Self.crc(crc) == CRC32C.checksum(data) else {
                throw .checksumMismatch(.googleCloudKMS, key: name, field: "signature")
            }
        }
        return [UInt8](data)
    }

    /// A CRC32C field (an int64 in JSON, which Google's REST mapping writes as a string).
    static func crc(_ value: JSONValue) -> UInt32? {
        switch value {
        case .string(let text), .number(let text): UInt32(text)
        default: nil
        }
    }

    /// One call: `method` on `v1/{path}` with the JSON `body`, as the service account (a refused token is
    /// replaced once).
    private func call(
        _ method: String, _ path: String, body: JSONValue?, key: String, operation: String,
        deadline: ContinuousClock.Instant? = nil
    ) async throws(CloudKMSError) -> JSONValue {
        let deadline = CallerDeadline.bounding(deadline ?? clock.now.advanced(by: callTimeout), on: clock)
        guard let url = URL(string: CloudEndpoint.origin(endpoint) + "/v1/" + path) else {
            throw .invalidKeyName(.googleCloudKMS, name: key, field: "name", reason: "does not make a URL")
        }
        let rest = CloudRESTCall(
            provider: .googleCloudKMS, transport: transport, clock: clock, retryPolicy: retryPolicy,
            attemptTimeout: attemptTimeout)
        for attempt in 0..<2 {
            let token = try await tokens.token()
            var headers = [HTTPHeader("Authorization", "Bearer \(token)")]
            if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
            let answer = try await rest.send(
                method, url, headers: headers, body: body.map { Array($0.serialized.utf8) }, key: key,
                deadline: deadline)
            if answer.response.isSuccess {
                guard let json = answer.json, json.objectValue != nil else {
                    throw .malformedResponse(.googleCloudKMS, key: key, field: "body", reason: "not a JSON object")
                }
                return json
            }
            if answer.response.status == 401, attempt == 0 {
                tokens.invalidate()
                continue
            }
            throw GCPKMSErrorAnswer.error(answer, key: key, operation: "cloudkms.cryptoKeyVersions.\(operation)")
        }
        throw .accessDenied(
            .googleCloudKMS, key: key, operation: operation, status: 401, message: "the access token was refused")
    }
}
