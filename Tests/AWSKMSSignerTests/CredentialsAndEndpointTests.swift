import AWSKMSSigner
import Foundation
import Testing

/// Where credentials, the region and the endpoint come from, and what is refused.
@Suite("AWS credentials, region and endpoint resolution")
struct CredentialsAndEndpointTests {
    static let secret = "credentials-test-secret-0b7e"
    static let token = "credentials-test-token-IQoJ"

    @Test("the environment's key pair and token win; half a pair is refused")
    func environment() throws {
        let credentials = try AWSCredentials.resolve(environment: [
            "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": Self.secret, "AWS_SESSION_TOKEN": Self.token,
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        ])
        #expect(credentials.accessKeyID == "AKIAENV")
        #expect(credentials.hasSessionToken)
        #expect(credentials.source == "environment")
        for shown in [credentials.description, String(reflecting: credentials), dumped(credentials)] {
            #expect(!shown.contains(Self.secret) && !shown.contains(Self.token), "\(shown)")
        }
        #expect(throws: AWSKMSError.self) {
            try AWSCredentials.resolve(environment: ["AWS_ACCESS_KEY_ID": "AKIAENV", "HOME": "/nonexistent"])
        }
    }

    @Test("the shared credentials file: the profile AWS_PROFILE names, else default; errors name the line")
    func sharedFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("aws-credentials-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        let text = """
            # comment
            [default]
            aws_access_key_id = AKIADEFAULT
            aws_secret_access_key = \(Self.secret)

            [payments]
            aws_access_key_id=AKIAPAYMENTS
            aws_secret_access_key=\(Self.secret)
            aws_session_token = \(Self.token)
            """
        try text.write(to: file, atomically: true, encoding: .utf8)
        let base = ["AWS_SHARED_CREDENTIALS_FILE": file.path]
        #expect(try AWSCredentials.resolve(environment: base).accessKeyID == "AKIADEFAULT")
        var named = base
        named["AWS_PROFILE"] = "payments"
        let payments = try AWSCredentials.resolve(environment: named)
        #expect(payments.accessKeyID == "AKIAPAYMENTS" && payments.hasSessionToken)
        named["AWS_PROFILE"] = "absent"
        #expect(throws: AWSKMSError.self) { try AWSCredentials.resolve(environment: named) }

        try "[default]\naws_access_key_id AKIA\(Self.secret)\n".write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try AWSCredentials.resolve(environment: base)
            Issue.record("a malformed line was accepted")
        } catch {
            #expect(error == .invalidCredentialsFile(path: file.path, line: 2, reason: "expected name = value"))
            #expect(!error.description.contains(Self.secret))
        }
    }

    @Test("region and endpoint: option, then AWS_ENDPOINT_URL_KMS, then AWS_ENDPOINT_URL; plain http only to loopback")
    func endpoint() throws {
        #expect(throws: AWSKMSError.missingRegion) { try AWSKMSEndpoint.resolve(environment: [:]) }
        let standard = try AWSKMSEndpoint.resolve(environment: ["AWS_DEFAULT_REGION": "eu-west-1"])
        #expect(standard.url.absoluteString == "https://kms.eu-west-1.amazonaws.com")
        let environment = [
            "AWS_REGION": "us-east-2", "AWS_DEFAULT_REGION": "eu-west-1",
            "AWS_ENDPOINT_URL_KMS": "http://127.0.0.1:4566", "AWS_ENDPOINT_URL": "https://other.example",
        ]
        let local = try AWSKMSEndpoint.resolve(environment: environment)
        #expect(local.region == "us-east-2" && local.url.absoluteString == "http://127.0.0.1:4566")
        let option = try AWSKMSEndpoint.resolve(
            region: "ap-south-1", endpointURL: "https://kms-fips.ap-south-1.amazonaws.com", environment: environment)
        #expect(option.region == "ap-south-1" && option.url.host == "kms-fips.ap-south-1.amazonaws.com")
        #expect(try AWSKMSEndpoint.resolve(region: "x", endpointURL: "http://[::1]:8080").url.port == 8080)
        #expect(try AWSKMSEndpoint.resolve(region: "x", endpointURL: "http://localhost:1").region == "x")

        for refused in [
            "http://kms.example.com", "http://10.0.0.1:4566", "http://127.0.0.1.example.com", "ftp://127.0.0.1",
            "https://user:pass@kms.example.com", "https://kms.example.com/path", "https://kms.example.com/?a=b",
        ] {
            #expect(throws: AWSKMSError.self, "\(refused)") {
                try AWSKMSEndpoint.resolve(region: "eu-west-1", endpointURL: refused)
            }
        }
        #expect(throws: AWSKMSError.invalidRegion("eu west")) { try AWSKMSEndpoint(region: "eu west") }
    }

    /// `dump`'s text of `value`.
    func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
