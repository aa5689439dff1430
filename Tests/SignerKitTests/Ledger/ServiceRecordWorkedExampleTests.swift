import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// The service-record worked example of docs/AUDIT.md ("Worked example: a service record and its receipt"), pinned
/// to the byte: three audit records as `signerkit serve` writes them (a `personal_sign` between two reads), the
/// checkpoint a `signerkit_receipt` call signs when none covers them yet, and the receipt of the signing call's record.
///
/// Everything is made by the code the service runs, from fixed fields, times and request ids: the lines as
/// `AuditLog.append` makes them (``CallRecord/auditObjects(_:requestID:at:)``, serialized, sealed by
/// ``LedgerChain``), the checkpoint as ``AuditLedgerSettings`` makes and signs it (by `TestKeys.wallet`; RFC 6979
/// signing is deterministic), the receipt as `AuditLog` answers it (``AuditLedgerSettings/checkedReceipt(of:proof:checkpoint:)``).
/// Each text the doc prints is a file under Fixtures/ledger that the doc quotes verbatim; two of them are the
/// doc's shell walk, which runs here.
@Suite("Service record worked example")
struct ServiceRecordWorkedExampleTests {
    static let origin = "signer.example.com/audit"
    /// 2026-03-02T09:15:00Z: the records come in the seconds after it.
    static let start: TimeInterval = 1_772_442_900
    /// When the receipt was asked for, so when its checkpoint was signed: half a minute later.
    static let checkpointTime = Date(timeIntervalSince1970: start + 30)
    /// The service's `X-Request-Id` of request `n` (a fixed prefix, then the count, as `RequestIDs` makes them).
    static func requestID(_ n: Int) -> String { "08842f23-5a1c-4d7e-0000-00000000000\(n)" }

    /// What the example's service wrote and answered.
    struct Example {
        /// The sealed records, in log order.
        let entries: [LedgerEntry]
        /// The checkpoint the receipt call signed (size 3).
        let checkpoint: SignedCheckpoint
        /// The receipt of record 1.
        let receipt: LedgerReceipt

        /// The audit log file: a line per record, then the checkpoint's line.
        var log: String {
            entries.map { $0.text + "\n" }.joined() + LedgerLogFile.checkpointLine(checkpoint.note) + "\n"
        }

        /// The receipt as the client saves it from the `signerkit_receipt` answer (`r.json`).
        var receiptFile: String { JSONValue.object(receipt.json).serialized + "\n" }
    }

    /// The fixture `ledger/name`, exact bytes.
    static func fixture(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/ledger/\(name)", withExtension: nil))
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The three calls and their records, as the service fills them in; `policySet` is the policy file's SHA-256.
    static func calls(policySet: Bytes32) async throws -> [CallRecord] {
        let base = ChainID(eip155: 8453)
        let signer = TestKeys.other

        var chainID = CallRecord(client: "shop", method: "eth_chainId")
        chainID.noteResult(.string("0x2105"))
        chainID.duration = .microseconds(400)

        // personal_sign of an invoice text by the service's software key, previewed and signed for real.
        let message = Array("Pay invoice 1042: 250 USDC to Acme Ltd".utf8)
        let digest = PersonalMessage.digest(message)
        var sign = CallRecord(client: "shop", method: "personal_sign")
        sign.actions = [WalletRpcAction.personalSign(message: message, account: signer.address, chain: base)]
        sign.note([
            SigningPreviewer().preview(
                index: 0, chain: base, chainId: 8453, method: .personalSign, account: signer.address,
                payload: .personalMessage(bytes: message, digest: digest))
        ])
        sign.backends = ["software"]
        sign.noteResult(.string(try await signer.sign(prehash: digest).hex))
        sign.duration = .milliseconds(7)

        var accounts = CallRecord(client: "payouts", method: "eth_accounts")
        accounts.noteResult(.array([.string(signer.address.checksummed)]))
        accounts.duration = .microseconds(300)

        return [chainID, sign, accounts].map { record in
            var record = record
            record.policySet = policySet
            return record
        }
    }

    /// Builds the example: each call is a request of its own, written a little after the one before.
    static func example() async throws -> Example {
        let policySet = MerkleHash.sha256(Array(try fixture("service-policy.json").utf8))
        var chain = LedgerChain()
        var entries: [LedgerEntry] = []
        let offsets: [TimeInterval] = [0.25, 2.125, 5.5]
        for (index, record) in try await calls(policySet: policySet).enumerated() {
            let time = Date(timeIntervalSince1970: start + offsets[index])
            let texts = CallRecord.auditObjects([record], requestID: requestID(index + 1), at: time)
                .map { JSONValue.object($0).serialized }
            let sealed = chain.sealed(texts: texts)
            chain.append(sealed)
            entries += sealed
        }
        let settings = AuditLedgerSettings(
            signer: TestKeys.wallet, origin: origin, checkpointEvery: 1000, now: { checkpointTime })
        let signed = try await settings.sign(try settings.checkpoint(of: chain))
        let proof = try chain.tree.inclusionProof(forLeafAt: 1, treeSize: signed.checkpoint.size)
        return Example(
            entries: entries, checkpoint: signed,
            receipt: try settings.checkedReceipt(of: entries[1], proof: proof, checkpoint: signed.note))
    }

    /// What `worked-receipt.sh` prints, line by line, from the library's own values: the record's `seq`, `prev` and
    /// leaf hash, the next record's `prev` and leaf hash, the proof's two hashes and the two steps of the inclusion
    /// walk, the checkpoint's size and root, the key ID on its signature line and the one the key's name and address
    /// give, the signature (made here again as EIP-191 over the note body), and the policy-set hash in the receipt
    /// and of the policy file.
    static func walkOutput(_ example: Example) async throws -> String {
        let hex = LedgerEntry.plainHex
        let record = example.entries[1]
        let proof = example.receipt.inclusion
        try #require(proof.count == 2)
        let firstStep = MerkleHash.node(proof[0], record.leafHash)
        let note = try SignedNote(parsing: example.checkpoint.note)
        let line = try #require(note.signatures.first)
        let signature = try await TestKeys.wallet.sign(prehash: PersonalMessage.digest(Array(note.body.utf8)))
        let keyID = SignedNote.keyID(keyName: origin, address: TestKeys.wallet.address)
        let policySet = try #require(example.receipt.policySet)
        let rows: [(String, String)] = [
            ("seq", String(record.seq)), ("prev", hex(record.prev)), ("leaf 1", hex(record.leafHash)),
            ("prev of 2", hex(example.entries[2].prev)), ("leaf 2", hex(example.entries[2].leafHash)),
            ("p0", hex(proof[0])), ("p1", hex(proof[1])), ("node(p0, l)", hex(firstStep)),
            ("node(n, p1)", hex(MerkleHash.node(firstStep, proof[1]))),
            ("size", String(example.checkpoint.checkpoint.size)), ("root", hex(example.checkpoint.checkpoint.root)),
            ("key ID", String(format: "%08x", line.keyID)), ("expected", String(format: "%08x", keyID)),
            ("signature", signature.hex), ("policySet", hex(policySet)),
            ("policy.json", hex(MerkleHash.sha256(Array(try fixture("service-policy.json").utf8)))),
        ]
        return rows.map { label, value in (label + ":").padding(toLength: 13, withPad: " ", startingAt: 0) + value }
            .joined(separator: "\n") + "\n"
    }

    /// The `signerkit` executable beside the test bundle (`swift build` puts every product there), if built.
    static let signerkit: URL? = {
        let url = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("signerkit")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }()

    /// Runs the fixture script `name` with /bin/sh in a new directory holding the files an auditor has (`r.json`,
    /// `c.txt`, `audit.jsonl`, `policy.json`), with `signerkit`'s directory first on the PATH when it is built:
    /// its exit status, standard output and standard error.
    static func runScript(_ name: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("worked-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = [
            "r.json": "service-receipt.json", "c.txt": "service-checkpoint.txt", "audit.jsonl": "service-audit.jsonl",
            "policy.json": "service-policy.json", "stdout": nil, "stderr": nil,
        ]
        for (file, source) in files {
            try Data((try source.map(fixture) ?? "").utf8).write(to: directory.appendingPathComponent(file))
        }
        let script = try #require(Bundle.module.url(forResource: "Fixtures/ledger/\(name)", withExtension: nil))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [script.path]
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        if let signerkit {
            let path = environment["PATH"].map { ":" + $0 } ?? ""
            environment["PATH"] = signerkit.deletingLastPathComponent().path + path
        }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: directory.appendingPathComponent("stdout"))
        process.standardError = try FileHandle(forWritingTo: directory.appendingPathComponent("stderr"))
        try await ChildProcess.run(process)
        let exited = await ChildProcess.onThread { ChildProcess.awaitExit(process, within: .seconds(60)) }
        if !exited { await ChildProcess.onThread { ChildProcess.terminate(process) } }
        try #require(exited, "\(name) did not finish within a minute")
        let read = { (file: String) in
            String(decoding: (try? Data(contentsOf: directory.appendingPathComponent(file))) ?? Data(), as: UTF8.self)
        }
        return (process.terminationStatus, read("stdout"), read("stderr"))
    }

    @Test("the log, the checkpoint and the receipt are the fixtures, byte for byte, and they verify")
    func pinnedTexts() async throws {
        let example = try await Self.example()
        #expect(example.log == (try Self.fixture("service-audit.jsonl")))
        #expect(example.checkpoint.note == (try Self.fixture("service-checkpoint.txt")))
        #expect(example.receiptFile == (try Self.fixture("service-receipt.json")))

        // The chain: each record's prev is the leaf hash of the one before; the proof of record 1 in the tree of
        // 3 is its two neighbours' leaf hashes.
        let hashes = example.entries.map(\.leafHash)
        #expect(example.entries.map(\.prev) == [LedgerEntry.noPrevious, hashes[0], hashes[1]])
        #expect(example.receipt.inclusion == [hashes[0], hashes[2]])

        // What an auditor holds verifies: the receipt read back from its file against the checkpoint file, the
        // whole log file, and the policy set is the policy file's SHA-256 (a file the service loads).
        let key = try Address(TestKeys.alphaAddress)
        let receipt = try LedgerReceipt(json: try JSONValue(parsing: try Self.fixture("service-receipt.json")))
        #expect(receipt == example.receipt)
        let verified = try receipt.verify(against: try Self.fixture("service-checkpoint.txt"), key: key)
        #expect(verified == example.checkpoint.checkpoint)
        let summary = try LedgerVerifier.verify(log: Array(try Self.fixture("service-audit.jsonl").utf8), key: key)
        #expect(summary == LedgerVerifier.Summary(records: 3, checkpoints: 1, coveredRecords: 3))
        let policy = try Self.fixture("service-policy.json")
        #expect(try PolicyFile.policies(jsonText: policy).count == 2)
        #expect(receipt.policySet == MerkleHash.sha256(Array(policy.utf8)))
    }

    @Test("the doc's hand walk (worked-receipt.sh) runs in /bin/sh and prints the library's hashes")
    func handWalk() async throws {
        let expected = try await Self.walkOutput(try await Self.example())
        #expect(try Self.fixture("worked-receipt.out") == expected)
        let run = try await Self.runScript("worked-receipt.sh")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected, "\(run.stderr)")
    }

    @Test("the doc's signerkit commands: the checkpoint recovers to the key's address, audit verify exits 0")
    func signerkitCommands() async throws {
        // `swift build --build-tests` (what the test script runs) builds it: a missing one fails, never skips.
        try #require(Self.signerkit != nil, "the signerkit executable is not next to the test bundle")
        let expected = try Self.fixture("worked-receipt-signerkit.out")
        #expect(expected.hasPrefix(TestKeys.wallet.address.checksummed + "\n"))
        let run = try await Self.runScript("worked-receipt-signerkit.sh")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected, "\(run.stderr)")
    }

    @Test("docs/AUDIT.md quotes every fixture of the example verbatim")
    func docQuotesFixtures() throws {
        // This file is Tests/SignerKitTests/Ledger/ServiceRecordWorkedExampleTests.swift.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let doc = try String(contentsOf: root.appendingPathComponent("docs/AUDIT.md"), encoding: .utf8)
        let names = [
            "service-policy.json", "service-audit.jsonl", "service-receipt.json", "service-checkpoint.txt",
            "worked-receipt.sh", "worked-receipt.out", "worked-receipt-signerkit.sh", "worked-receipt-signerkit.out",
        ]
        for name in names {
            #expect(doc.contains(try Self.fixture(name)), "docs/AUDIT.md does not quote Fixtures/ledger/\(name)")
        }
    }
}
