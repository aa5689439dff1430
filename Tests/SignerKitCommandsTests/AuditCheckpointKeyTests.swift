import AWSKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
import Testing

/// The ledger's checkpoints signed by the keys a production service would use (`ledger.checkpointKey`): a key on
/// a PKCS#11 token (SoftHSM2) and a key in AWS KMS (the local KMS), through `signerkit serve`; the log they sign
/// verifies against the key's address and no other.
@Suite(
    "Ledger checkpoints signed by a PKCS#11 token and by AWS KMS",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct AuditCheckpointKeyTests {
    let serve = ServeTests()

    /// Starts `signerkit serve` with an audit log that is a ledger (a checkpoint every 2 records) whose checkpoint
    /// key is `checkpointKey` (a key source's JSON), signs three messages, stops it and verifies the log against
    /// `address` (and not against another).
    func signAndVerify(checkpointKey: String, address: Address, environment: [String: String]) async throws {
        let directory = try TemporaryDirectory()
        let config = try ServeTests.config(
            directory,
            #", "auditLog": "audit.jsonl", "ledger": {"checkpointKey": \#(checkpointKey), "checkpointEvery": 2}"#)
        let service = try await ServiceProcess.start(config: config, environment: environment)
        for index in 0..<3 {
            let body =
                #"{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x0\#(index)","\#(Actions.address)"]}"#
            let response = try await serve.post(service, body)
            let answer = try JSONValue(parsing: response.body)
            #expect(response.status == 200 && answer["result"] != nil, "\(answer)")
        }
        // A receipt of the last call: a checkpoint of 3 records is signed for it by the same key.
        let receipt = try await serve.call(
            service, "signerkit_receipt", .array([.object(JSONObject(["leaf": .number("2")]))]))
        #expect(receipt["result"]?["treeSize"] == .number("3"), "\(receipt)")
        #expect(await service.stop() == 0)

        let log = directory.path("audit.jsonl")
        let verified = try await Binary.run(["audit", "verify", "--log", log, "--checkpoint-key", address.checksummed])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.stdoutLines == ["verified 4 records, 2 checkpoints"], "\(verified)")
        let other = try await Binary.run([
            "audit", "verify", "--log", log, "--checkpoint-key",
            try PrivateKey(hex: TestKeys.deltaHex).address.checksummed,
        ])
        #expect(other.status == 1 && other.stderr.hasPrefix("error: checkpoint 0: "), "\(other)")
    }

    @Test("a key on a PKCS#11 token signs the checkpoints", .enabled(if: CLIHSM.available, "SoftHSM2 is not installed"))
    func pkcs11CheckpointKey() async throws {
        // The store is only used by the child processes; this process never loads SoftHSM2.
        let store = try await CLIHSM.makeStore()
        let generated = try await Binary.run(
            ["pkcs11", "keygen", "--key-label", "ledger-checkpoint"] + store.tokenArguments(),
            environment: store.environment)
        #expect(generated.status == 0, "\(generated)")
        let address = try Address(generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let source = #"""
            {"pkcs11": {"module": "\#(CLIHSM.modulePath)", "tokenLabel": "\#(CLIHSM.Label.main)", "keyLabel": "ledger-checkpoint", "pinFile": "\#(store.pinFile)"}}
            """#
        try await signAndVerify(checkpointKey: source, address: address, environment: store.environment)
    }

    @Test("a key in AWS KMS signs the checkpoints")
    func awsKMSCheckpointKey() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let keyID = try await environment.createKey()
        let address = try await AWSKMSKeySigner.load(keyID: keyID, client: try environment.client()).address
        try await signAndVerify(
            checkpointKey: #"{"awsKMS": {"keyId": "\#(keyID)"}}"#, address: address,
            environment: environment.commandEnvironment())
        #expect(try await environment.kms.stats().rejected == 0)
    }
}
