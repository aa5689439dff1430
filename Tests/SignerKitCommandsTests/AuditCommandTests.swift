import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitHTTP
import SignerKitTestSupport
import Testing

@Suite(
    "signerkit serve with a ledger, signerkit_receipt and signerkit audit verify",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct AuditCommandTests {
    let serve = ServeTests()
    /// The checkpoint key (not the signing key).
    static let checkpointKey = TestKeys.gammaHex
    static var checkpointAddress: String {
        (try? PrivateKey(hex: checkpointKey).address.checksummed) ?? ""
    }
    static var otherAddress: String { (try? PrivateKey(hex: TestKeys.deltaHex).address.checksummed) ?? "" }

    /// A service with an audit log file that is a ledger (a checkpoint every 2 records) and a policy file.
    static func ledgerService(_ directory: TemporaryDirectory) async throws -> ServiceProcess {
        _ = try directory.write("checkpoint.hex", checkpointKey + "\n")
        _ = try directory.write("policy.json", #"{"allowedChains": ["eip155:2021"]}"# + "\n")
        let config = try ServeTests.config(
            directory,
            #", "auditLog": "audit.jsonl", "policyFile": "policy.json", "ledger": {"checkpointKeyFile": "checkpoint.hex", "checkpointEvery": 2}"#
        )
        return try await ServiceProcess.start(config: config)
    }

    /// `personal_sign` of `message` (hex), and the answer's `X-Request-Id`.
    func sign(_ service: ServiceProcess, _ message: String) async throws -> String {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["\#(message)","\#(Actions.address)"]}"#
        let response = try await serve.post(service, body)
        #expect(response.status == 200)
        #expect(try JSONValue(parsing: response.body)["result"]?.stringValue != nil)
        return try #require(response.header("X-Request-Id"))
    }

    @Test(
        "every answer's records are in the ledger: the whole log verifies, receipts verify offline, tampering is named")
    func ledgerEndToEnd() async throws {
        let directory = try TemporaryDirectory()
        let service = try await Self.ledgerService(directory)
        var requestIDs: [String] = []
        for index in 0..<5 { requestIDs.append(try await sign(service, "0x0\(index)")) }

        // A receipt of request 4's record: signs a checkpoint covering it when none does yet.
        let answer = try await serve.call(service, "signerkit_receipt", .array([.string(requestIDs[4])]))
        let receipts = try #require(answer["result"]?.arrayValue, "\(answer)")
        #expect(receipts.count == 1)
        let receipt = try #require(receipts.first)
        let checkpoint = try #require(receipt["checkpoint"]?.stringValue)
        let receiptPath = try directory.write("receipt.json", receipt.serialized)
        let checkpointPath = try directory.write("checkpoint.txt", checkpoint)
        // The record carries the policy file's SHA-256, and so does the receipt.
        let policyHash = Hex.encode(
            SHA256.hash(Array((#"{"allowedChains": ["eip155:2021"]}"# + "\n").utf8)), prefix: false)
        #expect(receipt["policySet"]?.stringValue == policyHash)

        let good = try await Binary.run([
            "audit", "verify", "--receipt", receiptPath, "--checkpoint", checkpointPath, "--checkpoint-key",
            Self.checkpointAddress,
        ])
        #expect(good.status == 0, "\(good)")
        let otherKey = try await Binary.run([
            "audit", "verify", "--receipt", receiptPath, "--checkpoint", checkpointPath, "--checkpoint-key",
            Self.otherAddress,
        ])
        #expect(otherKey.status == 1 && otherKey.stderr.hasPrefix("error: "), "\(otherKey)")

        // The same record's receipt asked for by its leaf index.
        let leaf = try #require(receipt["index"].flatMap { if case .number(let n) = $0 { Int(n) } else { nil } })
        let byLeaf = try await serve.call(
            service, "signerkit_receipt", .array([.object(JSONObject(["leaf": .number(String(leaf))]))]))
        #expect(byLeaf["result"]?["entry"] == receipt["entry"], "\(byLeaf)")

        // The receipt in the answer's header, asked for with `SignerKit-Receipt: request`.
        let headerRequest = HTTPRequest(
            method: "POST", url: service.url,
            headers: [
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("Authorization", "Bearer \(ServeTests.token)"), HTTPHeader("SignerKit-Receipt", "request"),
            ],
            body: Array(
                #"{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x77","\#(Actions.address)"]}"#.utf8),
            timeout: .seconds(30))
        let answered = try await serve.transport.send(headerRequest)
        let header = try #require(answered.header("SignerKit-Receipt"), "\(answered.headers)")
        let decoded = try #require(Base64URL.decode(header))
        let inHeader = try #require(try JSONValue(parsing: String(decoding: decoded, as: UTF8.self)).arrayValue?.first)
        let headerReceipt = try directory.write("header-receipt.json", inHeader.serialized)
        let headerCheckpoint = try directory.write(
            "header-checkpoint.txt", try #require(inHeader["checkpoint"]?.stringValue))
        let fromHeader = try await Binary.run([
            "audit", "verify", "--receipt", headerReceipt, "--checkpoint", headerCheckpoint, "--checkpoint-key",
            Self.checkpointAddress,
        ])
        #expect(fromHeader.status == 0, "\(fromHeader)")
        // Without the request header, no receipt header.
        let plain = try await serve.post(service, #"{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}"#)
        #expect(plain.header("SignerKit-Receipt") == nil)

        #expect(await service.stop() == 0)
        let log = directory.path("audit.jsonl")
        let verified = try await Binary.run([
            "audit", "verify", "--log", log, "--checkpoint-key", Self.checkpointAddress,
        ])
        #expect(verified.status == 0, "\(verified)")
        // 5 signatures, the receipt call, the by-leaf call, the signature with its receipt header, eth_chainId.
        #expect(verified.stdout.hasPrefix("verified 9 records, "), "\(verified)")

        // One byte of record 2 changed (still valid JSON): record 3's prev no longer matches (record 3 comes
        // before the checkpoint of 4 records, which would fail too).
        var lines = try String(contentsOfFile: log, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map(String.init)
        let recordLine = try #require(lines.firstIndex { $0.hasPrefix(#"{"seq":2,"#) })
        lines[recordLine] = lines[recordLine].replacingOccurrences(of: #""client":"app""#, with: #""client":"apq""#)
        let edited = try directory.write("edited.jsonl", lines.joined(separator: "\n"))
        let tampered = try await Binary.run([
            "audit", "verify", "--log", edited, "--checkpoint-key", Self.checkpointAddress,
        ])
        #expect(tampered.status == 1 && tampered.stdout.isEmpty, "\(tampered)")
        #expect(tampered.stderr.hasPrefix("error: record 3: "), "\(tampered.stderr)")

        // Checkpoints by another key: the first is named.
        let wrongKey = try await Binary.run(["audit", "verify", "--log", log, "--checkpoint-key", Self.otherAddress])
        #expect(wrongKey.status == 1 && wrongKey.stderr.hasPrefix("error: checkpoint 0: "), "\(wrongKey)")

        // The log cut short before the checkpoint an auditor kept.
        let original = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let kept = try #require(original.firstIndex { $0.contains(#""seq":6,"#) })
        let cut = try directory.write("cut.jsonl", original[..<kept].joined(separator: "\n") + "\n")
        let latest = try await serve.checkpointOfLog(log)
        let truncated = try await Binary.run([
            "audit", "verify", "--log", cut, "--checkpoint", try directory.write("latest.txt", latest),
            "--checkpoint-key", Self.checkpointAddress,
        ])
        #expect(truncated.status == 1 && truncated.stderr.contains("cut short"), "\(truncated)")
    }

    @Test(
        "a policy in shadow is decided and recorded, never enforced; policy replay says what a candidate would change")
    func shadowAndReplay() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("checkpoint.hex", Self.checkpointKey + "\n")
        let candidate = try directory.write("candidate.json", #"{"allowedMethods": ["eth_signTypedData_v4"]}"#)
        let config = try ServeTests.config(
            directory,
            #", "auditLog": "audit.jsonl", "shadowPolicyFile": "candidate.json", "ledger": {"checkpointKeyFile": "checkpoint.hex", "checkpointEvery": 10}"#
        )
        let service = try await ServiceProcess.start(config: config)
        for index in 0..<3 { _ = try await sign(service, "0x1\(index)") }
        #expect(await service.stop() == 0)
        let log = directory.path("audit.jsonl")
        let records = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONValue(parsing: String($0)) }.filter { $0["method"]?.stringValue == "personal_sign" }
        #expect(records.count == 3)
        for record in records {
            // Signed, as the enforced policies (none) allow; the shadow policy would have refused.
            #expect(record["outcome"]?.stringValue == "ok")
            #expect(record["actions"]?.arrayValue?.count == 1)
            let shadow = try #require(record["shadow"]?.arrayValue, "\(record)")
            #expect(shadow.count == 1 && shadow[0]["decision"]?.stringValue == "refuse", "\(shadow)")
        }
        let replay = try await Binary.run(["policy", "replay", "--audit", log, "--policy", candidate])
        #expect(replay.status == 0, "\(replay)")
        let lines = replay.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("record ") && $0.contains("signed -> refused") }.count == 3, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("rule ") && $0.contains("refuses 3") }, "\(lines)")
        #expect(lines.last == "replayed 3 calls: 3 would change", "\(lines)")
        // A candidate that allows what was signed changes nothing.
        let lenient = try directory.write("lenient.json", #"{"allowedMethods": ["personal_sign"]}"#)
        let same = try await Binary.run(["policy", "replay", "--audit", log, "--policy", lenient])
        #expect(same.stdout.split(separator: "\n").last == "replayed 3 calls: 0 would change", "\(same)")
        // The log is still a ledger that verifies.
        let verified = try await Binary.run([
            "audit", "verify", "--log", log, "--checkpoint-key", Self.checkpointAddress,
        ])
        #expect(verified.status == 0, "\(verified)")
    }

    @Test("unreadable input exits 65 with one error line; the contract's flags are checked")
    func unreadableInput() async throws {
        let directory = try TemporaryDirectory()
        let missing = try await Binary.run([
            "audit", "verify", "--log", directory.path("none.jsonl"), "--checkpoint-key", Self.checkpointAddress,
        ])
        #expect(missing.status == 65 && missing.stderr.hasPrefix("error: "), "\(missing)")
        let badKey = try await Binary.run(["audit", "verify", "--log", directory.path("x"), "--checkpoint-key", "0x12"])
        #expect(badKey.status == 65, "\(badKey)")
        let receipt = try directory.write("receipt.json", "not json")
        let checkpoint = try directory.write("checkpoint.txt", "x\n")
        let badReceipt = try await Binary.run([
            "audit", "verify", "--receipt", receipt, "--checkpoint", checkpoint, "--checkpoint-key",
            Self.checkpointAddress,
        ])
        #expect(badReceipt.status == 65, "\(badReceipt)")
        let noCheckpoint = try await Binary.run([
            "audit", "verify", "--receipt", receipt, "--checkpoint-key", Self.checkpointAddress,
        ])
        #expect(noCheckpoint.status == 65, "\(noCheckpoint)")
    }

    @Test("a configuration with a ledger is checked: its key is loaded, a bad member is named")
    func ledgerConfiguration() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("checkpoint.hex", Self.checkpointKey + "\n")
        let good = try ServeTests.config(
            directory, #", "auditLog": "a.jsonl", "ledger": {"checkpointKeyFile": "checkpoint.hex"}"#)
        let ok = try await Binary.run(["serve", "check-config", "--config", good])
        #expect(ok.status == 0, "\(ok)")
        let cases: [(String, String)] = [
            (#", "ledger": {}"#, "ledger: give checkpointKeyFile or checkpointKey"),
            (#", "ledger": {"checkpointKeyFile": "missing.hex"}"#, "ledger.checkpointKey"),
            (#", "ledger": {"checkpointKeyFile": "checkpoint.hex", "checkpointEvery": 0}"#, "ledger.checkpointEvery"),
            (#", "ledger": {"checkpointKeyFile": "checkpoint.hex", "origin": "a b"}"#, "ledger.origin"),
            (
                #", "ledger": {"checkpointKeyFile": "checkpoint.hex", "checkpointIntervalSeconds": 0}"#,
                "ledger.checkpointIntervalSeconds"
            ),
            (#", "ledger": {"checkpointKeyFile": "checkpoint.hex", "every": 3}"#, "ledger.every"),
        ]
        for (index, (extra, expected)) in cases.enumerated() {
            let sub = try TemporaryDirectory()
            _ = try sub.write("checkpoint.hex", Self.checkpointKey + "\n")
            let path = try ServeTests.config(sub, extra)
            let result = try await Binary.run(["serve", "check-config", "--config", path])
            #expect(result.status == 65, "case \(index): \(result)")
            #expect(result.stderr.contains(expected), "case \(index): \(result.stderr)")
        }
    }
}

extension ServeTests {
    /// The newest checkpoint note in a ledger log file.
    func checkpointOfLog(_ path: String) async throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").last { $0.hasPrefix(#"{"event":"checkpoint""#) })
        return try #require(try JSONValue(parsing: String(line))["checkpoint"]?.stringValue)
    }
}
