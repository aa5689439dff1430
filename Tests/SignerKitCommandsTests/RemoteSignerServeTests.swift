import EthereumPrimitives
import Foundation
import RemoteSigner
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

@Suite(
    "Remote signer: another signerkit serve as the remote, through the library, the CLI and a service",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct RemoteSignerServeTests {
    /// The remote: `signerkit serve` on loopback holding the test key, for client `app` (``ServeTests/token``).
    static func remote(_ directory: TemporaryDirectory) async throws -> ServiceProcess {
        try await ServiceProcess.start(config: try ServeTests.config(directory))
    }

    /// A client of `service` with `token`.
    static func client(_ service: ServiceProcess, token: String) throws -> RemoteSignerClient {
        RemoteSignerClient(
            endpoint: try RemoteSignerEndpoint(service.url.absoluteString), kind: .signerkit,
            token: RemoteSignerToken(token))
    }

    @Test("messages, typed data and three transaction types signed by the remote service and verified; 401")
    func library() async throws {
        let directory = try TemporaryDirectory()
        let service = try await Self.remote(directory)
        defer { service.stopInBackground() }
        let backend = try await RemoteSignerBackend.connect(try Self.client(service, token: ServeTests.token))
        #expect(backend.accounts == [RemoteActions.alpha])
        let signed = try await RemoteActions.dispatcher(backend).sign(
            actions: try RemoteActions.all(from: TestKeys.alphaAddress))
        try RemoteActions.check(signed.results, account: RemoteActions.alpha)

        let refused = try Self.client(service, token: "not-the-token")
        await #expect(throws: RemoteSignerError.unauthorized(url: refused.endpoint.description, status: 401)) {
            _ = try await RemoteSignerBackend.connect(refused)
        }
        #expect(
            !"\(RemoteSignerError.unauthorized(url: refused.endpoint.description, status: 401))".contains("not-the"))
        #expect("\(try #require(RemoteSignerToken("secret-token")))" == "<bearer token>")
    }

    @Test("CLI: key address and sign with --remote-signer; a bad token, an unknown account, a digest-only command")
    func commandLine() async throws {
        let directory = try TemporaryDirectory()
        let service = try await Self.remote(directory)
        defer { service.stopInBackground() }
        let tokenFile = try directory.write("remote.token", ServeTests.token + "\n")
        let wrongFile = try directory.write("wrong.token", "wrong-token-5e2a\n")
        func remote(_ account: String = TestKeys.alphaAddress, token: String = tokenFile) -> [String] {
            [
                "--remote-signer", service.url.absoluteString, "--remote-account", account,
                "--remote-signer-kind", "signerkit", "--remote-token-file", token,
            ]
        }
        expectSuccess(await signerkit(["key", "address"] + remote()), [TestKeys.alphaAddress])
        let actions = try directory.write("actions.json", Actions.text(try Actions.mixed()))
        try await verifyMixedResults(
            await signerkit(["sign", "--actions", actions] + remote()), address: TestKeys.alphaAddress)

        let refused = await signerkit(["key", "address"] + remote(token: wrongFile))
        expectInvalid(refused, "refused the bearer token (HTTP 401)")
        #expect(!refused.stderr.contains("wrong-token-5e2a"))
        let beta = TestKeys.other.address.checksummed
        expectInvalid(await signerkit(["key", "address"] + remote(beta)), "does not hold account \(beta)")
        // One request each, signed by the remote and verified before it is printed.
        let message = await signerkit(["message", "sign", "--text", "hello, actions"] + remote())
        expectSuccess(
            await signerkit([
                "recover", "message", "--text", "hello, actions", "--signature",
                message.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            ]),
            [TestKeys.alphaAddress])
        let ronin = Fixtures.path("ronin_order.json")
        let typed = await signerkit(["typed-data", "sign", ronin] + remote())
        expectSuccess(
            await signerkit([
                "recover", "typed-data", ronin, "--signature",
                typed.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            ]),
            [TestKeys.alphaAddress])
        let transaction = try directory.write("tx.json", Actions.transaction.serialized)
        let tx = await signerkit(["tx", "sign", transaction] + remote())
        #expect(tx.status == 0, "\(tx)")
        let raw = try #require(try JSONValue(parsing: tx.stdout)["raw"]?.stringValue, "\(tx)")
        let signed = try SignedTransaction.decode(hex: raw)
        #expect(try signed.recoverSender() == RemoteActions.alpha && signed.transaction.value == 42)
        let digestOnly = await signerkit(["typed-data", "sign", "--jsonl"] + remote())
        #expect(digestOnly.status != 0 && digestOnly.stderr.contains("--jsonl signs with a key"), "\(digestOnly)")

        let orphan = await signerkit(["key", "address", "--remote-account", TestKeys.alphaAddress])
        #expect(orphan.status != 0 && orphan.stderr.contains("--remote-account needs --remote-signer"))
        // The token may come from the environment instead of a file.
        expectSuccess(
            await signerkit(
                [
                    "key", "address", "--remote-signer", service.url.absoluteString, "--remote-account",
                    TestKeys.alphaAddress, "--remote-signer-kind", "signerkit",
                ],
                environment: ["SIGNERKIT_REMOTE_TOKEN": ServeTests.token]),
            [TestKeys.alphaAddress])
        let unreachable = try RefusingPort()
        expectInvalid(
            await signerkit(
                [
                    "key", "address", "--remote-signer", "http://127.0.0.1:\(unreachable.port)", "--remote-account",
                    TestKeys.alphaAddress,
                ]),
            "unreachable")
    }

    @Test("tx sign through the remote: a type-4 (EIP-7702) vector byte for byte, its authorizations kept")
    func setCodeVector() async throws {
        let vector = try #require(try SetCodeVector.all.first)
        let directory = try TemporaryDirectory()
        _ = try directory.write("k.hex", vector.privateKey + "\n")
        let config = try directory.write(
            "service.json",
            #"{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "clients": [{"name": "app", "tokenSha256": "\#(ServeTests.tokenHash)"}]}"#
        )
        let service = try await ServiceProcess.start(config: config)
        defer { service.stopInBackground() }
        let token = try directory.write("remote.token", ServeTests.token + "\n")
        let file = try directory.write("tx.json", vector.transactionJSON)
        expectSuccess(
            await signerkit([
                "tx", "sign", file, "--remote-signer", service.url.absoluteString, "--remote-account", vector.sender,
                "--remote-signer-kind", "signerkit", "--remote-token-file", token,
            ]),
            ["{\"raw\":\"\(vector.rawTransaction)\",\"hash\":\"\(vector.hash)\"}"])
    }

    @Test("serve with a remoteSigner key: every account the remote lists, signing through both services")
    func chainedService() async throws {
        let directory = try TemporaryDirectory()
        let remote = try await Self.remote(directory)
        defer { remote.stopInBackground() }
        _ = try directory.write("remote.token", ServeTests.token + "\n")
        let front = try TemporaryDirectory()
        _ = try front.write("remote.token", ServeTests.token + "\n")
        func config(_ accounts: String) throws -> String {
            try front.write(
                "front.json",
                #"{"listen": "127.0.0.1:0", "keys": [{"remoteSigner": {"url": "\#(remote.url.absoluteString)", "kind": "signerkit", "tokenFile": "remote.token"\#(accounts)}}], "clients": [{"name": "app", "tokenSha256": "\#(ServeTests.tokenHash)"}], "chainId": "eip155:2021"}"#
            )
        }
        expectSuccess(
            await signerkit(["serve", "check-config", "--config", try config("")]),
            ["configuration OK: 1 key(s), 1 client(s)"])
        let beta = TestKeys.other.address.checksummed
        expectInvalid(
            await signerkit(["serve", "check-config", "--config", try config(#", "accounts": ["\#(beta)"]"#)]),
            "keys[0]", "does not hold account \(beta)")
        expectInvalid(
            await signerkit(["serve", "check-config", "--config", try config(#", "accounts": []"#)]),
            "keys[0].remoteSigner.accounts")
        let badKind = try front.write(
            "bad.json",
            #"{"listen": "127.0.0.1:0", "keys": [{"remoteSigner": {"url": "http://127.0.0.1:1", "kind": "vault"}}], "clients": [{"name": "app", "tokenSha256": "\#(ServeTests.tokenHash)"}]}"#
        )
        expectInvalid(
            await signerkit(["serve", "check-config", "--config", badKind]), "keys[0].remoteSigner.kind",
            "web3signer or signerkit")
        let service = try await ServiceProcess.start(
            config: try config(#", "accounts": ["\#(TestKeys.alphaAddress)"]"#))
        defer { service.stopInBackground() }
        let message = "0x68656c6c6f"
        let body = JSONValue.object(
            JSONObject([
                "jsonrpc": .string("2.0"), "id": .number("1"), "method": .string("personal_sign"),
                "params": .array([.string(message), .string(TestKeys.alphaAddress)]),
            ])
        ).serialized
        let response = try await ServeTests().post(service, body)
        let answer = try JSONValue(parsing: response.body)
        let signature = try RecoverableSignature(hex: try #require(answer["result"]?.stringValue, "\(answer)"))
        #expect(
            try ECDSA.recoverAddress(prehash: PersonalMessage.digest(Array("hello".utf8)), signature: signature)
                == RemoteActions.alpha)
    }
}
