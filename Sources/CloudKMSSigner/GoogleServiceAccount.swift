import EthereumPrimitives
import Foundation

/// A Google service-account key file (the JSON `gcloud iam service-accounts keys create` writes): the
/// account's e-mail, its RSA private key and the token endpoint. It makes the RS256-signed JWT assertion
/// that Google's OAuth2 token endpoint exchanges for an access token (RFC 7523). The private key stays in
/// libgcrypt; nothing of it appears in `description`, `debugDescription` or a mirror.
public struct GoogleServiceAccount: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `client_email`: the account (the JWT's `iss`).
    public let clientEmail: String
    /// `private_key_id`: the key's id (the JWT header's `kid`), when the file has one.
    public let privateKeyID: String?
    /// `token_uri`: where the assertion is exchanged (the JWT's `aud`).
    public let tokenURI: URL
    /// Where the file was read from, for messages.
    public let source: String
    /// The private key.
    let key: RSASigningKey

    /// The scope SignerKit asks for: Cloud KMS only.
    public static let scope = "https://www.googleapis.com/auth/cloudkms"

    /// Reads the key file's JSON `data`; `source` names it in errors.
    ///
    /// - Throws: ``CloudKMSError/invalidCredentials(_:source:field:reason:)`` naming the field at fault (never
    ///   its value when it is the private key), ``CloudKMSError/invalidEndpoint(_:source:reason:)`` for a
    ///   `token_uri` that is neither https nor loopback http.
    public init(json data: [UInt8], source: String) throws(CloudKMSError) {
        let fail = { (field: String, reason: String) -> CloudKMSError in
            .invalidCredentials(.googleCloudKMS, source: source, field: field, reason: reason)
        }
        guard let json = try? JSONValue(parsing: data), json.objectValue != nil else {
            throw fail("file", "not a JSON object")
        }
        let string = { (field: String) throws(CloudKMSError) -> String in
            guard let value = json[field]?.stringValue, !value.isEmpty else {
                throw fail(field, "missing or not a string")
            }
            return value
        }
        guard json["type"]?.stringValue == "service_account" else {
            throw fail("type", "must be \"service_account\" (a service-account key file)")
        }
        clientEmail = try string("client_email")
        privateKeyID = json["private_key_id"]?.stringValue
        tokenURI = try CloudEndpoint.url(
            json["token_uri"]?.stringValue ?? "https://oauth2.googleapis.com/token", source: "\(source): token_uri",
            provider: .googleCloudKMS, allowsPath: true)
        let pem = try string("private_key")
        do { key = try RSASigningKey(pkcs8PEM: pem) } catch { throw fail("private_key", error.reason) }
        self.source = source
    }

    /// The key file at `GOOGLE_APPLICATION_CREDENTIALS` in `environment`, or at `path` when given.
    ///
    /// - Throws: ``CloudKMSError/missingCredentials(_:_:)`` when neither names a file,
    ///   ``CloudKMSError/invalidCredentials(_:source:field:reason:)`` when it cannot be read as one.
    public static func resolve(
        path: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CloudKMSError) -> GoogleServiceAccount {
        guard let path = path ?? environment["GOOGLE_APPLICATION_CREDENTIALS"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw .missingCredentials(
                .googleCloudKMS, "GOOGLE_APPLICATION_CREDENTIALS is not set (the path of a service-account key file)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidCredentials(.googleCloudKMS, source: path, field: "file", reason: "cannot be read")
        }
        return try GoogleServiceAccount(json: [UInt8](data), source: path)
    }

    /// The signed JWT assertion issued at `issuedAt` (wall time), valid for an hour: header `RS256`, claims
    /// `iss`, `scope`, `aud`, `iat`, `exp`.
    func assertion(issuedAt: Date) throws(CloudKMSError) -> String {
        let iat = Int(issuedAt.timeIntervalSince1970)
        var header: JSONObject = ["alg": "RS256", "typ": "JWT"]
        if let privateKeyID { header.members.append(.init(key: "kid", value: .string(privateKeyID))) }
        let claims: JSONValue = [
            "iss": .string(clientEmail), "scope": .string(Self.scope), "aud": .string(tokenURI.absoluteString),
            "iat": .number(String(iat)), "exp": .number(String(iat + 3600)),
        ]
        let input =
            Base64URL.encode(Array(JSONValue.object(header).serialized.utf8)) + "."
            + Base64URL.encode(Array(claims.serialized.utf8))
        do { return input + "." + Base64URL.encode(try key.signRS256(Array(input.utf8))) } catch {
            throw .invalidCredentials(.googleCloudKMS, source: source, field: "private_key", reason: error.reason)
        }
    }

    /// `GoogleServiceAccount(signer@project.iam.gserviceaccount.com, from PATH)`; never the key.
    public var description: String {
        "GoogleServiceAccount(\(CloudKMSError.quoted(clientEmail)), from \(CloudKMSError.quoted(source)))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The public fields only.
    public var customMirror: Mirror {
        Mirror(self, children: ["clientEmail": clientEmail, "tokenURI": tokenURI, "source": source])
    }
}
