import AWSKMSSigner
import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Testing

/// What the client sends and how it reads KMS's error answers, on a scripted transport: the request's shape
/// (JSON protocol, SigV4 asked of the transport, the session token as a header) and the error names in the
/// forms AWS's JSON services use.
@Suite("AWS KMS wire format on a scripted transport")
struct KMSWireTests {
    static func client(_ transport: ScriptedHTTPTransport, token: String? = nil) throws -> AWSKMSClient {
        AWSKMSClient(
            endpoint: try AWSKMSEndpoint(region: "eu-west-1"),
            credentials: AWSCredentials(
                accessKeyID: "AKIAWIRE", secretAccessKey: "wire-secret-9f2", sessionToken: token),
            transport: transport, retryPolicy: HTTPRetryPolicy(maxRetries: 0, baseDelay: .zero, maxDelay: .zero))
    }

    @Test("Sign is POST / with the JSON protocol's headers, SigV4 for kms in the region, the token as a header")
    func requestShape() async throws {
        let transport = ScriptedHTTPTransport([.status(200, body: #"{"KeyId":"k","Signature":"MAYCAQECAQE="}"#)])
        let der = try await Self.client(transport, token: "wire-token-77").signDigest(Digest32(), keyID: "alias/x")
        #expect(der == [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01])
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST" && request.url.absoluteString == "https://kms.eu-west-1.amazonaws.com/")
        let headers = Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
        #expect(headers["content-type"] == "application/x-amz-json-1.1")
        #expect(headers["x-amz-target"] == "TrentService.Sign")
        #expect(headers["x-amz-security-token"] == "wire-token-77")
        #expect(request.awsSignature?.curlProvider == "aws:amz:eu-west-1:kms")
        #expect(request.awsSignature?.accessKeyID == "AKIAWIRE")
        let body = try JSONValue(parsing: request.body ?? [])
        #expect(body["MessageType"] == "DIGEST" && body["SigningAlgorithm"] == "ECDSA_SHA_256")
        #expect(body["KeyId"] == "alias/x")
        #expect(body["Message"]?.stringValue == Data(count: 32).base64EncodedString())
        #expect(!"\(request.awsSignature.map(String.init(describing:)) ?? "")".contains("wire-secret"))
    }

    @Test("error names: plain, namespaced, only in X-Amzn-ErrorType; an unknown one keeps its name and status")
    func errorNames() async throws {
        let cases: [(ScriptedHTTPTransport.Answer, AWSKMSError)] = [
            (.status(400, body: #"{"__type":"NotFoundException","message":"gone"}"#), .keyNotFound(keyID: "k")),
            (
                .status(400, body: #"{"__type":"com.amazonaws.kms#DisabledException","Message":"off"}"#),
                .keyDisabled(keyID: "k")
            ),
            (
                .status(400, headers: ["X-Amzn-ErrorType": "ExpiredTokenException:http://internal"], body: "{}"),
                .expiredCredentials(keyID: "k")
            ),
            (
                .status(400, body: #"{"__type":"KMSInvalidStateException","message":"k is pending deletion."}"#),
                .keyPendingDeletion(keyID: "k")
            ),
            (
                .status(400, body: #"{"__type":"KMSInvalidStateException","message":"pending import"}"#),
                .keyUnavailable(keyID: "k", message: "pending import")
            ),
            (
                .status(400, body: #"{"__type":"InvalidKeyUsageException","message":"ENCRYPT_DECRYPT"}"#),
                .wrongKeySpec(keyID: "k", keySpec: "unknown", keyUsage: "InvalidKeyUsageException: ENCRYPT_DECRYPT")
            ),
            (
                .status(400, body: #"{"__type":"ThrottlingException","message":"Rate exceeded"}"#),
                .throttled(keyID: "k", attempts: 1)
            ),
            (
                .status(400, body: #"{"__type":"LimitExceededException","message":"too many"}"#),
                .service(keyID: "k", exception: "LimitExceededException", status: 400, message: "too many")
            ),
            (.status(502, body: "<html>"), .service(keyID: "k", exception: "unnamed error", status: 502, message: "")),
        ]
        for (answer, expected) in cases {
            let transport = ScriptedHTTPTransport([answer])
            await #expect(throws: expected) { try await Self.client(transport).signDigest(Digest32(), keyID: "k") }
            #expect(transport.requests.count == 1, "\(expected): never repeated")
        }
        let garbled = ScriptedHTTPTransport([.status(200, body: #"{"Signature":"***"}"#)])
        await #expect(throws: AWSKMSError.malformedResponse(keyID: "k", field: "Signature", reason: "not base64")) {
            try await Self.client(garbled).signDigest(Digest32(), keyID: "k")
        }
    }
}
