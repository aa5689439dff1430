/// Asks the transport to sign a request with AWS Signature Version 4 (the transport's own implementation:
/// `CurlHTTPTransport` hands it to libcurl's `CURLOPT_AWS_SIGV4`), for an AWS API such as KMS.
///
/// The transport adds `X-Amz-Date` and `Authorization`, and signs every header of the request; a session
/// token travels as an `X-Amz-Security-Token` header the caller adds (and so is signed too). The secret never
/// appears in ``description``, `debugDescription` or a mirror.
public struct AWSSignatureV4: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The region of the credential scope (`eu-west-1`).
    public var region: String
    /// The service of the credential scope (`kms`).
    public var service: String
    /// The access key id (public: AWS logs it with every call).
    public var accessKeyID: String
    /// The secret access key the signature is computed with.
    public var secretAccessKey: String

    /// Signing for `service` in `region` with the given key pair.
    public init(region: String, service: String, accessKeyID: String, secretAccessKey: String) {
        self.region = region
        self.service = service
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    /// libcurl's provider string: `aws:amz:REGION:SERVICE`.
    public var curlProvider: String { "aws:amz:\(region):\(service)" }

    /// `AWSSignatureV4(kms in eu-west-1, access key AKIA…)`; never the secret.
    public var description: String { "AWSSignatureV4(\(service) in \(region), access key \(accessKeyID))" }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The fields without the secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["region": region, "service": service, "accessKeyID": accessKeyID])
    }
}
