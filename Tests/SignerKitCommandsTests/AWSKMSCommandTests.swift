import AWSKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// `--aws-kms-key-id` on the signing commands and `awsKMS` keys in the service configuration, against the
/// local KMS (ministack behind the tests' SigV4-checking proxy), in process.
@Suite("AWS KMS key source of the commands and the service configuration")
struct AWSKMSCommandTests {
    @Test("key address, message sign and typed-data sign with --aws-kms-key-id: the key's address, low-s, v 27/28")
    func signingCommands() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let keyID = try await environment.createKey()
        try await environment.createAlias("alias/cli-key", keyID: keyID)
        let expected = try await AWSKMSKeySigner.load(keyID: keyID, client: try environment.client()).address
        // Region and endpoint from the flags (the environment names another region and no endpoint).
        var env = environment.commandEnvironment(KMSEnvironment.temporary)
        env["AWS_REGION"] = "eu-north-1"
        env.removeValue(forKey: "AWS_ENDPOINT_URL_KMS")
        let flags = [
            "--aws-kms-key-id", "alias/cli-key", "--aws-region", environment.region, "--aws-endpoint-url",
            environment.kms.endpoint.absoluteString,
        ]
        expectSuccess(await signerkit(["key", "address"] + flags, environment: env), [expected.checksummed])

        let message = await signerkit(["message", "sign", "--text", "hello KMS"] + flags, environment: env)
        #expect(message.status == 0 && message.stderr.isEmpty, "\(message)")
        let signature = try RecoverableSignature(hex: message.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(
            try ECDSA.recoverAddress(prehash: PersonalMessage.digest(Array("hello KMS".utf8)), signature: signature)
                == expected)
        let v = try Hex.decode(message.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).last
        #expect(v == 27 || v == 28)

        let typed = await signerkit(["typed-data", "sign", "-"] + flags, stdin: Self.typedData, environment: env)
        #expect(typed.status == 0 && typed.stderr.isEmpty, "\(typed)")
        let typedSignature = try RecoverableSignature(hex: typed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let hashed = await signerkit(["typed-data", "hash", "-"], stdin: Self.typedData)
        let digest = try #require(
            Digest32(try Hex.decode(hashed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))))
        #expect(try ECDSA.recoverAddress(prehash: digest, signature: typedSignature) == expected)
        #expect(try await environment.kms.stats().rejected == 0)
    }

    @Test("a key that cannot be used: exit 65, one error line naming the key id, never a credential")
    func unusableKeys() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let p256 = try await environment.createKey(spec: "ECC_NIST_P256")
        let env = environment.commandEnvironment()
        var results: [CommandResult] = []
        func check(_ arguments: [String], _ environment: [String: String], _ fragments: String...) async {
            let result = await signerkit(arguments, environment: environment)
            expectInvalid(result)
            for fragment in fragments { #expect(result.stderr.contains(fragment), "\(result)") }
            results.append(result)
        }
        await check(["key", "address", "--aws-kms-key-id", "alias/missing"], env, "alias/missing", "not found")
        await check(["key", "address", "--aws-kms-key-id", p256], env, p256, "ECC_NIST_P256")
        await check(
            ["message", "sign", "--text", "x", "--aws-kms-key-id", "alias/missing"],
            environment.commandEnvironment(KMSEnvironment.expired), "alias/missing", "expired")
        var noRegion = env
        noRegion.removeValue(forKey: "AWS_REGION")
        await check(["key", "address", "--aws-kms-key-id", "alias/k"], noRegion, "alias/k", "no AWS region")
        var noCredentials = env
        noCredentials.removeValue(forKey: "AWS_ACCESS_KEY_ID")
        noCredentials.removeValue(forKey: "AWS_SECRET_ACCESS_KEY")
        await check(["key", "address", "--aws-kms-key-id", "alias/k"], noCredentials, "alias/k", "no AWS credentials")
        await check(
            ["key", "address", "--aws-kms-key-id", "alias/k", "--aws-endpoint-url", "http://kms.example.com"], env,
            "alias/k", "plain http is refused")
        await check(
            ["key", "address", "--aws-region", "eu-west-1", "--key-file", "k.hex"], env,
            "--aws-region needs --aws-kms-key-id")
        await check(
            ["key", "address", "--aws-kms-key-id", "alias/k", "--key-file", "k.hex"], env, "cannot be used together")
        for result in results {
            #expect(KMSEnvironment.isFreeOfSecrets(result.stdout + result.stderr), "\(result)")
        }
    }

    @Test("serve check-config: an awsKMS key, and every key carrying a tag, as accounts")
    func serviceConfiguration() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        for _ in 0..<3 { _ = try await environment.createKey(tags: ["signer": "payments"]) }
        _ = try await environment.createKey(tags: ["signer": "other"])
        let single = try await environment.createKey()
        let directory = try TemporaryDirectory()
        let hash = String(repeating: "ab", count: 32)
        func config(_ keys: String) throws -> String {
            try directory.write(
                "service-\(UUID().uuidString).json",
                #"{"listen": "127.0.0.1:0", "keys": \#(keys), "clients": [{"name": "app", "tokenSha256": "\#(hash)"}]}"#
            )
        }
        let env = environment.commandEnvironment()
        let one = try config(#"[{"awsKMS": {"keyId": "\#(single)"}}]"#)
        expectSuccess(
            await signerkit(["serve", "check-config", "--config", one], environment: env),
            ["configuration OK: 1 key(s), 1 client(s)"])
        let tagged = try config(
            #"[{"awsKMS": {"tag": {"key": "signer", "value": "payments"}, "region": "us-east-1", "endpointURL": "\#(environment.kms.endpoint.absoluteString)"}}]"#
        )
        expectSuccess(
            await signerkit(["serve", "check-config", "--config", tagged], environment: env),
            ["configuration OK: 3 key(s), 1 client(s)"])
        let both = try config(#"[{"awsKMS": {"keyId": "a", "aliasPrefix": "alias/"}}]"#)
        expectInvalid(
            await signerkit(["serve", "check-config", "--config", both], environment: env),
            "keys[0].awsKMS", "exactly one of keyId, tag or aliasPrefix")
        let missing = try config(#"[{"awsKMS": {"keyId": "alias/none"}}]"#)
        expectInvalid(
            await signerkit(["serve", "check-config", "--config", missing], environment: env), "keys[0]", "alias/none")
    }

    static let typedData = #"""
        {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],"Note":[{"name":"text","type":"string"}]},"primaryType":"Note","domain":{"name":"KMS","chainId":1},"message":{"text":"signed in KMS"}}
        """#
}
