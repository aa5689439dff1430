import Foundation
import SignerKitHTTP

/// AWS credentials: an access key pair and, for temporary credentials, a session token.
///
/// ``resolve(environment:)`` looks where the AWS CLI and SDKs look: `AWS_ACCESS_KEY_ID` /
/// `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`, else the shared credentials file. The secret and the token
/// never appear in ``description``, `debugDescription` or a mirror.
public struct AWSCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key id (not a secret: AWS logs it with every call).
    public let accessKeyID: String
    /// The secret access key.
    let secretAccessKey: String
    /// The session token of temporary credentials, sent as `X-Amz-Security-Token`.
    let sessionToken: String?
    /// Where the credentials came from (`environment`, or the file and profile), for messages.
    public let source: String

    /// Credentials given directly (`source` says where from, for messages).
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, source: String = "given") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        self.source = source
    }

    /// Whether a session token comes with the key pair (temporary credentials).
    public var hasSessionToken: Bool { sessionToken != nil }

    /// `AWSCredentials(access key AKIA…, from environment)`; never the secret or the token.
    public var description: String {
        "AWSCredentials(access key \(accessKeyID)\(hasSessionToken ? " with a session token" : ""), from \(source))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The public fields only.
    public var customMirror: Mirror {
        Mirror(self, children: ["accessKeyID": accessKeyID, "source": source, "hasSessionToken": hasSessionToken])
    }

    /// The SigV4 signing the transport applies for `service` in `region`.
    func signature(region: String, service: String) -> AWSSignatureV4 {
        AWSSignatureV4(region: region, service: service, accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)
    }

    /// The credentials in `environment`, else in the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`,
    /// default `~/.aws/credentials`) under profile `AWS_PROFILE` (default `default`).
    ///
    /// - Throws: ``AWSKMSError/missingCredentials(_:)`` when neither has any (or only half a key pair),
    ///   ``AWSKMSError/invalidCredentialsFile(path:line:reason:)`` when the file cannot be read as one.
    public static func resolve(environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(AWSKMSError) -> AWSCredentials
    {
        let value = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        switch (value("AWS_ACCESS_KEY_ID"), value("AWS_SECRET_ACCESS_KEY")) {
        case (let id?, let secret?):
            return AWSCredentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"),
                source: "environment")
        case (nil, nil):
            break
        default:
            throw .missingCredentials("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together")
        }
        let profile = value("AWS_PROFILE") ?? "default"
        let path: String
        if let configured = value("AWS_SHARED_CREDENTIALS_FILE") {
            path = configured
        } else if let home = value("HOME") {
            path = home + "/.aws/credentials"
        } else {
            throw .missingCredentials("AWS_ACCESS_KEY_ID is not set and there is no HOME for ~/.aws/credentials")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw .missingCredentials("AWS_ACCESS_KEY_ID is not set and \(AWSKMSError.quoted(path)) does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidCredentialsFile(path: path, line: 0, reason: "cannot be read")
        }
        let entries = try AWSCredentialsFile.profile(profile, in: data, path: path)
        guard let id = entries["aws_access_key_id"], let secret = entries["aws_secret_access_key"] else {
            throw .missingCredentials(
                "profile \(AWSKMSError.quoted(profile)) in \(AWSKMSError.quoted(path)) has no "
                    + "aws_access_key_id and aws_secret_access_key")
        }
        return AWSCredentials(
            accessKeyID: id, secretAccessKey: secret, sessionToken: entries["aws_session_token"],
            source: "\(path), profile \(profile)")
    }
}
