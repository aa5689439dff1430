import EthereumPrimitives
import Foundation
import Testing

@Suite(
    "end to end: transactions, action lists, keystores and PKCS#11 with the built binary",
    .enabled(
        if: Binary.url != nil,
        "the signerkit executable is not next to the test bundle; build it with `swift build --product signerkit`"))
struct EndToEndSigningTests {
    @Test("tx sign: a vector row byte for byte; a missing field exits 65")
    func transaction() async throws {
        let vector = try #require(try TransactionVector.all.first { $0.name == "tx-15-eip2930" })
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey)
        expectSuccess(
            try await Binary.run(["tx", "sign", "--key-file", key, "-"], stdin: vector.transactionJSON),
            [vector.expectedOutput])
        expectInvalid(
            try await Binary.run(["tx", "sign", "--key-file", key], stdin: vector.without("nonce")),
            "field \"nonce\" is missing")
    }

    @Test("sign --actions: the mixed list; a bad action at index 2")
    func actions() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let file = try directory.write("actions.json", Actions.text(try Actions.mixed()))
        try await verifyMixedResults(
            try await Binary.run(["sign", "--actions", file, "--key-file", key]), address: Actions.address)
        var bad = try Actions.mixed()
        bad[2] = Actions.action(.wire, method: "eth_signTypedData_v4", params: .array([.string(Actions.address)]))
        expectInvalid(
            try await Binary.run(["sign", "--actions", "-", "--key-file", key], stdin: Actions.text(bad)),
            "action[2] (eth_signTypedData_v4): params: expected [address, typedData]")
    }

    @Test("keystore new / address / decrypt; a wrong password exits 65")
    func keystore() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let password = try directory.write("password", "end to end\n")
        let keystore = directory.path("keystore.json")
        expectSuccess(
            try await Binary.run([
                "keystore", "new", "--out", keystore, "--password-file", password, "--key-file", key, "--kdf-light",
            ]),
            [Actions.address])
        expectSuccess(try await Binary.run(["keystore", "address", keystore]), [Actions.address])
        let out = directory.path("out.key")
        let decrypted = try await Binary.run([
            "keystore", "decrypt", keystore, "--password-file", password, "--out", out,
        ])
        expectSuccess(decrypted, [Actions.address])
        expectNoKeyMaterial(decrypted, key: Actions.keyHex)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == Actions.keyHex + "\n")
        let wrong = try directory.write("wrong", "nope\n")
        expectInvalid(
            try await Binary.run([
                "keystore", "decrypt", keystore, "--password-file", wrong, "--out", directory.path("x"),
            ]), "wrong password")
        expectSuccess(
            try await Binary.run(["keystore", "address", keystore], environment: ["SIGNERKIT_PASSWORD": "unused"]),
            [Actions.address])
    }

    @Test(
        "pkcs11: import, list, sign and recover; a wrong PIN exits 65 with CKR_PIN_INCORRECT",
        .enabled(if: CLIHSM.available, "SoftHSM2 is not installed"))
    func pkcs11() async throws {
        // The store is only used by the child processes; this process never loads SoftHSM2.
        let store = try await CLIHSM.makeStore()
        let environment = store.environment
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        expectSuccess(
            try await Binary.run(
                ["pkcs11", "import", "--key-label", "e2e", "--key-file", key] + store.tokenArguments(),
                environment: environment),
            [Actions.address])
        let generated = try await Binary.run(
            ["pkcs11", "keygen", "--key-label", "e2e-gen"] + store.tokenArguments(), environment: environment)
        #expect(generated.status == 0, "\(generated)")
        let listed = try await Binary.run(["pkcs11", "list"] + store.tokenArguments(), environment: environment)
        #expect(listed.status == 0, "\(listed)")
        #expect(
            listed.stdoutLines.contains { $0.hasPrefix("e2e\t0x") && $0.hasSuffix("\t\(Actions.address)") }, "\(listed)"
        )
        #expect(
            listed.stdoutLines.contains {
                $0.hasPrefix("e2e-gen\t") && $0.hasSuffix("\t\(generated.stdout.trimmingCharacters(in: .newlines))")
            })

        let ronin = Fixtures.path("ronin_order.json")
        let typed = try await Binary.run(
            ["typed-data", "sign"] + store.signingArguments(keyLabel: "e2e") + [ronin], environment: environment)
        #expect(typed.status == 0 && typed.stderr.isEmpty, "\(typed)")
        expectSuccess(
            try await Binary.run(["recover", "typed-data", ronin, "--signature", typed.stdoutLines.first ?? ""]),
            [Actions.address])
        let message = try await Binary.run(
            ["message", "sign", "--text", "from the HSM", "--token-label", CLIHSM.Label.main, "--key-label", "e2e"],
            environment: environment.merging(["SIGNERKIT_PIN": CLIHSM.pin]) { _, new in new })
        #expect(message.status == 0, "\(message)")
        expectSuccess(
            try await Binary.run([
                "recover", "message", "--text", "from the HSM", "--signature", message.stdoutLines.first ?? "",
            ]), [Actions.address])

        let wrong = try await Binary.run(
            ["message", "sign", "--text", "x"]
                + store.signingArguments(keyLabel: "e2e", token: CLIHSM.Label.login, pinFile: store.wrongPinFile),
            environment: environment)
        expectInvalid(wrong, "CKR_PIN_INCORRECT")
        #expect(wrong.stdout.isEmpty)
    }
}
