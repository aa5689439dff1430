import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// `--gcp-kms-key` and `--azure-key-id` on the signing commands, and `gcpKMS` / `azureKeyVault` keys in the
/// service configuration, against the tests' stand-ins of the two services, in process.
@Suite("Google Cloud KMS and Azure Key Vault key sources of the commands and the service configuration")
struct CloudKMSCommandTests {
    @Test("key address and message sign with --gcp-kms-key and --azure-key-id: the key's address, low-s, v 27/28")
    func signingCommands() async throws {
        let standins = try await LocalCloudKMS.start()
        defer { standins.stop() }
        let env = standins.environment
        for (flag, service) in [("--gcp-kms-key", LocalCloudKMS.Service.gcp), ("--azure-key-id", .azure)] {
            let (name, address) = try await standins.createKey(service)
            expectSuccess(await signerkit(["key", "address", flag, name], environment: env), [try #require(address)])
            let message = await signerkit(["message", "sign", "--text", "hello cloud", flag, name], environment: env)
            #expect(message.status == 0 && message.stderr.isEmpty, "\(message)")
            let text = message.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let signature = try RecoverableSignature(hex: text)
            let recovered = try ECDSA.recoverAddress(
                prehash: PersonalMessage.digest(Array("hello cloud".utf8)), signature: signature)
            #expect(recovered.checksummed == address)
            let v = try Hex.decode(text).last
            #expect(v == 27 || v == 28)
        }
    }

    @Test("a key that cannot be used: exit 65, one error line naming the key, never a credential")
    func unusableKeys() async throws {
        let standins = try await LocalCloudKMS.start()
        defer { standins.stop() }
        let env = standins.environment
        let p256 = try await standins.createKey(.gcp, kind: "p256").name
        let azure = try await standins.createKey(.azure).name
        var results: [CommandResult] = []
        func check(_ arguments: [String], _ environment: [String: String], _ fragments: String...) async {
            let result = await signerkit(arguments, environment: environment)
            expectInvalid(result)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
            for fragment in fragments { #expect(result.stderr.contains(fragment), "\(result)") }
            results.append(result)
        }
        await check(["key", "address", "--gcp-kms-key", p256], env, String(p256.prefix(40)), "EC_SIGN_P256_SHA256")
        let missing = "projects/p/locations/l/keyRings/r/cryptoKeys/k/cryptoKeyVersions/7"
        await check(["key", "address", "--gcp-kms-key", missing], env, "cryptoKeyVersions/7", "not found")
        await check(
            ["key", "address", "--gcp-kms-key", "projects/p/keyRings/r"], env, "projects/p/keyRings/r", "locations")
        var wrongSecret = env
        wrongSecret["AZURE_CLIENT_SECRET"] = "wrong-secret-value-31337"
        await check(["key", "address", "--azure-key-id", azure], wrongSecret, azure, "invalid_client")
        var noGoogle = env
        noGoogle.removeValue(forKey: "GOOGLE_APPLICATION_CREDENTIALS")
        await check(
            ["key", "address", "--gcp-kms-key", missing], noGoogle, "cryptoKeyVersions/7",
            "GOOGLE_APPLICATION_CREDENTIALS")
        // The service-account file is a key file: a mode that lets others read it is refused (unless waived).
        let loose = standins.stateDirectory.appendingPathComponent("loose-sa.json").path
        try FileManager.default.copyItem(atPath: standins.serviceAccountPath, toPath: loose)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: loose)
        let gcp = try await standins.createKey(.gcp)
        await check(
            ["key", "address", "--gcp-kms-key", gcp.name, "--gcp-credentials", loose], env, "loose-sa.json",
            "mode 0644")
        expectSuccess(
            await signerkit(
                [
                    "key", "address", "--gcp-kms-key", gcp.name, "--gcp-credentials", loose,
                    "--allow-insecure-permissions",
                ],
                environment: env), [try #require(gcp.address)])
        await check(
            ["key", "address", "--azure-key-id", "http://vault.example.com/keys/k/1"], env, "vault.example.com",
            "plain http is refused")
        await check(
            ["key", "address", "--gcp-kms-key", missing, "--azure-key-id", azure], env, "cannot be used together")
        await check(
            ["key", "address", "--gcp-kms-endpoint", "https://x", "--key-file", "k"], env,
            "--gcp-kms-endpoint needs --gcp-kms-key")
        for result in results {
            let text = result.stdout + result.stderr
            #expect(
                !text.contains(standins.azureClientSecret) && !text.contains("wrong-secret-value-31337"), "\(result)")
            #expect(!text.contains("PRIVATE KEY") && !text.contains("-token-"), "\(result)")
        }
    }

    @Test("serve check-config: gcpKMS and azureKeyVault keys as accounts; a missing key names its entry")
    func serviceConfiguration() async throws {
        let standins = try await LocalCloudKMS.start()
        defer { standins.stop() }
        let gcp = try await standins.createKey(.gcp).name
        let azure = try await standins.createKey(.azure).name
        let directory = try TemporaryDirectory()
        let hash = String(repeating: "ab", count: 32)
        func config(_ keys: String) throws -> String {
            try directory.write(
                "service-\(UUID().uuidString).json",
                #"{"listen": "127.0.0.1:0", "keys": \#(keys), "clients": [{"name": "app", "tokenSha256": "\#(hash)"}]}"#
            )
        }
        var env = standins.environment
        env.removeValue(forKey: "GOOGLE_CLOUD_KMS_ENDPOINT")
        let both = try config(
            #"[{"gcpKMS": {"keyName": "\#(gcp)", "credentialsFile": "\#(standins.serviceAccountPath)", "endpointURL": "\#(standins.endpoint.absoluteString)"}}, {"azureKeyVault": {"keyId": "\#(azure)"}}]"#
        )
        expectSuccess(
            await signerkit(["serve", "check-config", "--config", both], environment: env),
            ["configuration OK: 2 key(s), 1 client(s)"])
        let missing = try config(
            #"[{"azureKeyVault": {"keyId": "\#(azure.replacingOccurrences(of: "signer-", with: "gone-"))"}}]"#)
        expectInvalid(
            await signerkit(["serve", "check-config", "--config", missing], environment: env), "keys[0]", "gone-",
            "not found")
        let unknown = try config(#"[{"azureKeyVault": {"keyId": "x", "secret": "s"}}]"#)
        expectInvalid(await signerkit(["serve", "check-config", "--config", unknown], environment: env), "secret")
    }
}
