import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
import Testing

@Suite(
    "signerkit serve: HTTPS and reloads",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"),
    .enabled(if: ToolRun.executable("openssl") != nil && ToolRun.executable("curl") != nil, "openssl and curl"))
struct ServeOperationsTests {
    /// A self-signed P-256 certificate for 127.0.0.1 and its key (mode 0600) in `directory`.
    static func certificate(in directory: TemporaryDirectory) async throws -> (certificate: String, key: String) {
        let certificate = directory.path("cert.pem")
        let key = directory.path("key.pem")
        try await ToolRun.run(
            try #require(ToolRun.executable("openssl")),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=signerkit-test", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out",
                certificate,
            ])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        return (certificate, key)
    }

    /// `curl` POSTing `body` to `url` with `token`, trusting `caFile`; the HTTP status (0 when no answer) and body.
    static func curl(_ url: URL, body: String, token: String, caFile: String?) async throws -> (Int, String) {
        var arguments = ["-s", "-o", "-", "-w", "\n%{http_code}", "--max-time", "20", "-X", "POST"]
        if let caFile { arguments += ["--cacert", caFile] }
        arguments += [
            "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json", "--data", body,
            url.absoluteString,
        ]
        let output: String
        do { output = try await ToolRun.run(try #require(ToolRun.executable("curl")), arguments) } catch {
            return (0, "\(error)")
        }
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    static let accounts = #"{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}"#

    @Test("tls: HTTPS with the configured certificate on any address; plain HTTP and unverified clients fail")
    func https() async throws {
        let directory = try TemporaryDirectory()
        let (certificate, key) = try await Self.certificate(in: directory)
        let tls = #", "tls": {"certificateFile": "cert.pem", "keyFile": "key.pem"}"#
        // A non-loopback address is accepted only with TLS.
        let wildcard = try ServeTests.config(directory, tls)
        let text = try String(contentsOfFile: wildcard, encoding: .utf8)
        try directory.write("any.json", text.replacingOccurrences(of: "127.0.0.1:0", with: "0.0.0.0:0"))
        let checked = try await Binary.run(["serve", "check-config", "--config", directory.path("any.json")])
        #expect(checked.status == 0, "\(checked)")
        let config = try ServeTests.config(directory, tls)
        let service = try await ServiceProcess.start(config: config)
        #expect(service.url.scheme == "https", "the listening line names https: \(service.url)")
        let (status, body) = try await Self.curl(
            service.url, body: Self.accounts, token: ServeTests.token, caFile: certificate)
        #expect(status == 200, "\(body)")
        let answer = try JSONValue(parsing: body)
        #expect(answer["result"] == .array([.string(Actions.address)]))
        // Without the certificate as trust anchor, and over plain HTTP, there is no answer.
        #expect(try await Self.curl(service.url, body: Self.accounts, token: ServeTests.token, caFile: nil).0 == 0)
        var plain = URLComponents(url: service.url, resolvingAgainstBaseURL: false)
        plain?.scheme = "http"
        let plainStatus = try await Self.curl(
            try #require(plain?.url), body: Self.accounts, token: ServeTests.token, caFile: nil)
        #expect(plainStatus.0 != 200)
        #expect(await service.stop() == 0)
        // A key file others can read is refused, as every secret file is.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        let refused = try await Binary.run(["serve", "--config", config])
        #expect(refused.status == 65 && refused.stderr.contains("tls.keyFile"), "\(refused)")
    }

    @Test("SIGHUP reloads clients and policies; an invalid file keeps the running ones")
    func reload() async throws {
        let directory = try TemporaryDirectory()
        let config = try ServeTests.config(directory)
        let service = try await ServiceProcess.start(config: config)
        let sign = #"{"jsonrpc":"2.0","id":2,"method":"personal_sign","params":["0x68656c6c6f","\#(Actions.address)"]}"#
        #expect(try await ServeTests().post(service, sign).status == 200)

        // A new client replaces the old one, and a policy now refuses every personal_sign.
        let newToken = "reloaded-token-51d0"
        let newHash = Hex.encode(SHA256.hash(Array(newToken.utf8)), prefix: false)
        try directory.write("policy.json", #"{"allowedMethods": ["eth_signTypedData_v4"]}"#)
        let text = try String(contentsOfFile: config, encoding: .utf8)
            .replacingOccurrences(of: ServeTests.tokenHash, with: newHash)
            .replacingOccurrences(of: #""chainId""#, with: #""policyFile": "policy.json", "chainId""#)
        try directory.write("service.json", text)
        service.send(signal: SIGHUP)
        let reloaded = try await service.awaitLogLine(withMessagePrefix: "reloaded")
        #expect(
            reloaded?["clients"] == .number("1"),
            "\(String(describing: reloaded)); stderr: \((try? String(contentsOfFile: service.stderrPath, encoding: .utf8))?.suffix(2000) ?? "")"
        )
        #expect(try await ServeTests().post(service, Self.accounts).status == 401, "the old token is gone")
        #expect(try await ServeTests().post(service, Self.accounts, token: newToken).status == 200)
        let refused = try JSONValue(parsing: try await ServeTests().post(service, sign, token: newToken).body)
        #expect(refused["error"] != nil, "the reloaded policy refuses: \(refused.serialized)")

        // An invalid file changes nothing.
        try directory.write("service.json", #"{"listen": "127.0.0.1:0", "keys": []}"#)
        let before = service.logLines.count
        service.send(signal: SIGHUP)
        let rejected = try await service.awaitLogLine(withMessagePrefix: "reload refused", after: before)
        #expect(rejected?["problem"]?.stringValue?.contains("keys") == true, "\(String(describing: rejected))")
        #expect(try await ServeTests().post(service, Self.accounts, token: newToken).status == 200)
        #expect(await service.stop() == 0)
    }
}
