import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// The audit ledger read back: ``LedgerChain`` seals and adopts records, ``LedgerVerifier`` checks a log as it
/// was stored and names the FIRST record or checkpoint that does not hold, and ``LedgerReceipt`` proves one
/// record against a signed checkpoint. Every log here is built in memory the way the audit log writes one: a
/// record per line, a checkpoint line after every third record, signed by the fixed test key `TestKeys.wallet`.
@Suite("Ledger verifier, chain and receipts")
struct LedgerVerifierTests {
    static let origin = "signer.example.com/audit"
    /// 2026-01-01T00:00:00Z: every checkpoint's time.
    static let time = Date(timeIntervalSince1970: 1_767_225_600)

    /// Ledger settings signing with `signer` (the checkpoint key by default) at the fixed time.
    static func settings(_ signer: any PrehashSigner = TestKeys.wallet, origin: String = origin)
        -> AuditLedgerSettings
    {
        AuditLedgerSettings(signer: signer, origin: origin, checkpointEvery: 3, now: { Self.time })
    }

    /// The checkpoint key's address.
    static var key: Address { TestKeys.wallet.address }

    /// The policy-set hash record `n` holds.
    static func policySet(_ n: Int) -> Bytes32 { MerkleHash.sha256(Array("policy file \(n)".utf8)) }

    /// Record `n`'s own members (what an audit record holds after `seq` and `prev`).
    static func record(_ n: Int) -> JSONObject {
        JSONObject([
            "time": .string("2026-01-01T00:00:00.\(String(format: "%03d", n % 1000))Z"),
            "requestId": .string("req-\(n)"), "call": .number("0"), "client": .string("shop"),
            "method": .string("eth_sendTransaction"), "outcome": .string("ok"),
            "policySet": .string(LedgerEntry.plainHex(policySet(n))),
        ])
    }

    /// A log held in memory: its lines (without newlines), the chain of its records, its signed checkpoints.
    struct Log {
        var lines: [String] = []
        var chain = LedgerChain()
        var checkpoints: [SignedCheckpoint] = []
    }

    /// The bytes of a log file of `lines`.
    static func bytes(_ lines: [String]) -> [UInt8] { Array(lines.map { $0 + "\n" }.joined().utf8) }

    /// Records `first ..< first + records`, a checkpoint line after every third. For 8 records the lines are
    /// r0 r1 r2 cp0 r3 r4 r5 cp1 r6 r7 (``line(ofRecord:)``, ``line(ofCheckpoint:)``).
    static func log(records: Int = 8, from first: Int = 0) async throws -> Log {
        var log = Log()
        for n in first..<(first + records) {
            let entries = log.chain.sealed([record(n)])
            log.chain.append(entries)
            log.lines.append(entries[0].text)
            if log.chain.size % 3 == 0 {
                let signed = try await settings().sign(try settings().checkpoint(of: log.chain))
                log.checkpoints.append(signed)
                log.lines.append(LedgerLogFile.checkpointLine(signed.note))
            }
        }
        return log
    }

    /// The line of record `n` in a log made by ``log(records:from:)``.
    static func line(ofRecord n: Int) -> Int { n + n / 3 }
    /// The line of checkpoint `k` (of size 3(k + 1)) in a log made by ``log(records:from:)``.
    static func line(ofCheckpoint k: Int) -> Int { 4 * k + 3 }

    /// `objects` sealed afresh as records 0, 1, … (`seq` and `prev` recomputed), with `checkpointLines[size]`
    /// after the record that makes the chain `size` long.
    static func rechained(_ objects: [JSONObject], checkpointLines: [Int: String]) -> [String] {
        var chain = LedgerChain()
        var lines: [String] = []
        for object in objects {
            let entries = chain.sealed([object])
            chain.append(entries)
            lines.append(entries[0].text)
            if let line = checkpointLines[chain.size] { lines.append(line) }
        }
        return lines
    }

    /// The checkpoint line of `log`'s tree at `size` records, signed by `signer` under `origin`.
    static func checkpointLine(
        _ log: Log, size: Int, signer: any PrehashSigner = TestKeys.wallet, origin: String = origin
    ) async throws -> String {
        let settings = settings(signer, origin: origin)
        return LedgerLogFile.checkpointLine(
            try await settings.sign(try settings.checkpoint(of: log.chain, treeSize: size)).note)
    }

    /// `text` with its first `old` replaced by `new` (recorded as an issue when `old` is not in it).
    static func replacing(_ old: String, with new: String, in text: String) -> String {
        guard let range = text.range(of: old) else {
            Issue.record("\(old) is not in \(text)")
            return text
        }
        return text.replacingCharacters(in: range, with: new)
    }

    /// The error verifying `lines` (and `outside`) against `key` gives, or `nil` when the log verifies.
    static func failure(_ lines: [String], key: Address = key, outside: String? = nil) -> LedgerVerificationError? {
        do {
            _ = try LedgerVerifier.verify(log: bytes(lines), key: key, outsideCheckpoint: outside)
            return nil
        } catch { return error }
    }

    /// A summary's records, checkpoints and covered records.
    static func counts(_ summary: LedgerVerifier.Summary) -> [Int] {
        [summary.records, summary.checkpoints, summary.coveredRecords]
    }

    /// The record or checkpoint `error` names.
    static func place(_ error: LedgerVerificationError?) -> LedgerProblem? { error?.located }

    /// The problem `error` states (empty for none).
    static func problem(_ error: LedgerVerificationError?) -> String {
        switch error {
        case .record(_, let problem)?, .checkpoint(_, let problem)?: problem
        case nil: ""
        }
    }

    // MARK: LedgerEntry and LedgerChain

    @Test("an entry starts with seq and prev, drops a record's own seq and prev, and reads back")
    func entryLayout() throws {
        var object = Self.record(0)
        object["seq"] = .number("7")
        object["prev"] = .string("x")
        let prev = MerkleHash.sha256([1])
        let entry = LedgerEntry(seq: 4, prev: prev, record: object)
        #expect(entry.text.hasPrefix(#"{"seq":4,"prev":"\#(LedgerEntry.plainHex(prev))","time":"#))
        #expect(entry.object.members.filter { $0.key == "seq" }.count == 1)
        let parsed = try LedgerEntry(parsing: entry.text)
        #expect(parsed == entry)
        #expect(parsed.leafHash == MerkleHash.leaf(Array(entry.text.utf8)))
        #expect(
            LedgerEntry(seq: 0, prev: LedgerEntry.noPrevious, record: object).text.contains(
                String(repeating: "0", count: 64)))
    }

    @Test(
        "a stored line that is not an entry is refused, saying what it lacks",
        arguments: [
            ("not json", LedgerEntryError.notJSON),
            ("[1,2]", .notJSON),
            (#"{"time":"2026-01-01T00:00:00.000Z","client":"shop"}"#, .missing("seq")),
            (#"{"seq":"0","prev":"\#(String(repeating: "0", count: 64))"}"#, .missing("seq")),
            (#"{"seq":1e0,"prev":"\#(String(repeating: "0", count: 64))"}"#, .missing("seq")),
            (#"{"seq":-1,"prev":"\#(String(repeating: "0", count: 64))"}"#, .missing("seq")),
            (#"{"seq":0}"#, .missing("prev")),
            (#"{"seq":0,"prev":"0x\#(String(repeating: "0", count: 62))"}"#, .missing("prev")),
            (#"{"seq":0,"prev":"\#(String(repeating: "0", count: 63))"}"#, .missing("prev")),
            (#"{"seq":0,"prev":"\#(String(repeating: "g", count: 64))"}"#, .missing("prev")),
        ])
    func entryRefused(text: String, expected: LedgerEntryError) {
        #expect(throws: expected) { try LedgerEntry(parsing: text) }
    }

    @Test("sealed does not change the chain; a batch seals as one record at a time does; append adds them")
    func sealAndAppend() {
        var chain = LedgerChain()
        let batch = chain.sealed([Self.record(0), Self.record(1), Self.record(2)])
        #expect(chain.size == 0 && chain.lastLeafHash == LedgerEntry.noPrevious)
        #expect(batch.map(\.seq) == [0, 1, 2])
        #expect(batch[0].prev == LedgerEntry.noPrevious)
        #expect(batch[1].prev == batch[0].leafHash && batch[2].prev == batch[1].leafHash)
        var single = LedgerChain()
        for n in 0..<3 {
            let entries = single.sealed([Self.record(n)])
            #expect(entries == [batch[n]])
            single.append(entries)
        }
        chain.append(batch)
        #expect(chain.size == 3 && chain.lastLeafHash == batch[2].leafHash)
        #expect(chain.tree.root == single.tree.root)
        #expect(chain.tree.leafHashes == batch.map(\.leafHash))
    }

    @Test("adopt takes stored records in order and names the first that does not follow on")
    func adopt() async throws {
        let log = try await Self.log(records: 4)
        let records = log.lines.filter { !$0.hasPrefix(#"{"event":"checkpoint""#) }
        var chain = LedgerChain()
        for text in records { try chain.adopt(text) }
        #expect(chain.tree.root == log.chain.tree.root)

        var skipping = LedgerChain()
        try skipping.adopt(records[0])
        #expect(throws: LedgerChainError.outOfSequence(index: 1)) { try skipping.adopt(records[2]) }
        #expect(throws: LedgerChainError.outOfSequence(index: 1)) { try skipping.adopt(records[0]) }
        // The right seq after another record 0: prev does not match.
        let foreign = LedgerEntry(seq: 1, prev: MerkleHash.sha256([9]), record: Self.record(1)).text
        #expect(throws: LedgerChainError.outOfSequence(index: 1)) { try skipping.adopt(foreign) }
        #expect(throws: LedgerChainError.notARecord(index: 1, .notJSON)) { try skipping.adopt("garbage") }
        #expect(throws: LedgerChainError.notARecord(index: 1, .missing("seq"))) {
            try skipping.adopt(#"{"client":"shop"}"#)
        }
        #expect(skipping.size == 1, "nothing refused was added")
    }

    @Test("a checkpoint of a size the chain has not had is refused")
    func checkpointBeyondChain() async throws {
        let log = try await Self.log(records: 4)
        let two = try log.chain.checkpoint(origin: Self.origin, treeSize: 2, time: 0)
        let root = try log.chain.tree.root(atSize: 2)
        #expect(two.size == 2 && two.root == root)
        do {
            _ = try log.chain.checkpoint(origin: Self.origin, treeSize: 5, time: 0)
            Issue.record("a checkpoint of 5 records was made from a chain of 4")
        } catch {
            guard case .proof = error else {
                Issue.record("expected .proof, got \(error)")
                return
            }
        }
    }

    // MARK: LedgerVerifier: a clean log

    @Test("a clean log verifies: records, checkpoints and the records the newest covers")
    func cleanLog() async throws {
        let log = try await Self.log()
        #expect(log.lines.count == 10)
        let summary = try LedgerVerifier.verify(log: Self.bytes(log.lines), key: Self.key)
        #expect(Self.counts(summary) == [8, 2, 6])
        // Ending on a checkpoint, and an empty log.
        let six = try LedgerVerifier.verify(log: Self.bytes(Array(log.lines[..<8])), key: Self.key)
        #expect(Self.counts(six) == [6, 2, 6])
        #expect(Self.counts(try LedgerVerifier.verify(log: [], key: Self.key)) == [0, 0, 0])
    }

    @Test("the classifier: records, checkpoint lines, and a last line without its newline left out")
    func classifier() async throws {
        let log = try await Self.log(records: 3)
        var bytes = Self.bytes(log.lines)
        bytes += Array(#"{"seq":3,"prev":"ab"#.utf8)
        let lines = LedgerLogFile.lines(bytes)
        #expect(
            lines.map(\.line) == [
                .record(log.lines[0]), .record(log.lines[1]), .record(log.lines[2]),
                .checkpoint(log.checkpoints[0].note),
            ])
        #expect(lines[1].offset == log.lines[0].utf8.count + 1 && lines[1].length == log.lines[1].utf8.count)
        // A checkpoint line with another member is a record (and fails as one).
        let extra = #"{"event":"checkpoint","checkpoint":"x","more":1}"#
        #expect(LedgerLogFile.lines(Array((extra + "\n").utf8)).map(\.line) == [.record(extra)])
    }

    @Test("the database form: records by seq and checkpoints by size verify as the file does")
    func databaseForm() async throws {
        let log = try await Self.log()
        let records = (0..<8).map { log.lines[Self.line(ofRecord: $0)] }
        let notes = log.checkpoints.map(\.note)
        let summary = try LedgerVerifier.verify(records: records, checkpoints: notes, key: Self.key)
        #expect(Self.counts(summary) == [8, 2, 6])
        var edited = records
        edited[4] = Self.replacing(#""client":"shop""#, with: #""client":"shoq""#, in: edited[4])
        do {
            _ = try LedgerVerifier.verify(records: edited, checkpoints: notes, key: Self.key)
            Issue.record("an edited record 4 verified")
        } catch {
            #expect(Self.place(error) == .record(5), "record 5's prev no longer matches record 4")
        }
        edited = records
        edited[5] = Self.replacing(#""client":"shop""#, with: #""client":"shoq""#, in: edited[5])
        do {
            _ = try LedgerVerifier.verify(records: edited, checkpoints: notes, key: Self.key)
            Issue.record("an edited record 5 verified")
        } catch {
            #expect(Self.place(error) == .checkpoint(1), "checkpoint 1 (size 6) covers record 5")
        }
    }

    // MARK: LedgerVerifier: tampered records

    @Test("one byte of a record changed, JSON still valid: the next record's prev names it")
    func editedRecordCaughtByNextRecord() async throws {
        let log = try await Self.log()
        var lines = log.lines
        lines[Self.line(ofRecord: 1)] = Self.replacing(
            #""client":"shop""#, with: #""client":"shoq""#, in: lines[Self.line(ofRecord: 1)])
        #expect(Self.place(Self.failure(lines)) == .record(2))
        // The record after a checkpoint: the prev of record 4 catches record 3.
        lines = log.lines
        lines[Self.line(ofRecord: 3)] = Self.replacing(
            #""outcome":"ok""#, with: #""outcome":"oK""#, in: lines[Self.line(ofRecord: 3)])
        #expect(Self.place(Self.failure(lines)) == .record(4))
    }

    @Test("one byte of the last record a checkpoint covers changed: that checkpoint names it")
    func editedRecordCaughtByCheckpoint() async throws {
        let log = try await Self.log()
        for n in [2, 5] {
            var lines = log.lines
            lines[Self.line(ofRecord: n)] = Self.replacing(
                #""client":"shop""#, with: #""client":"shoq""#, in: lines[Self.line(ofRecord: n)])
            #expect(Self.place(Self.failure(lines)) == .checkpoint(n / 3), "record \(n)")
        }
    }

    @Test("the last record, which no checkpoint covers yet, is caught only by a checkpoint held outside the log")
    func editedTailCaughtByOutsideCheckpoint() async throws {
        let log = try await Self.log()
        let outside = try await Self.settings().sign(try Self.settings().checkpoint(of: log.chain)).note
        #expect(Self.failure(log.lines, outside: outside) == nil)
        var lines = log.lines
        lines[Self.line(ofRecord: 7)] = Self.replacing(
            #""client":"shop""#, with: #""client":"shoq""#, in: lines[Self.line(ofRecord: 7)])
        #expect(Self.failure(lines) == nil, "nothing in the log covers record 7")
        #expect(Self.place(Self.failure(lines, outside: outside)) == .checkpoint(2))
    }

    @Test("one byte of a record changed so that it is no JSON: that record is named")
    func brokenRecord() async throws {
        let log = try await Self.log()
        for n in [0, 4, 7] {
            var lines = log.lines
            var text = lines[Self.line(ofRecord: n)]
            #expect(text.removeLast() == "}")
            lines[Self.line(ofRecord: n)] = text + "]"
            #expect(Self.place(Self.failure(lines)) == .record(n), "record \(n)")
        }
        // A blank line is a record too (and not one).
        var lines = log.lines
        lines.insert("", at: Self.line(ofRecord: 4))
        #expect(Self.place(Self.failure(lines)) == .record(4))
    }

    @Test("a record dropped: the record after it is named (its seq is one too high)")
    func droppedRecord() async throws {
        let log = try await Self.log()
        for n in [0, 1, 3, 6] {
            var lines = log.lines
            lines.remove(at: Self.line(ofRecord: n))
            #expect(Self.place(Self.failure(lines)) == .record(n), "record \(n) dropped")
            #expect(Self.problem(Self.failure(lines)).contains("removed"))
        }
        // The last record dropped: the log no longer has the records checkpoint 1 covers.
        var lines = log.lines
        lines.remove(at: Self.line(ofRecord: 5))
        #expect(Self.place(Self.failure(lines)) == .checkpoint(1))
    }

    @Test("two records swapped: the first of the two places is named")
    func swappedRecords() async throws {
        let log = try await Self.log()
        for (a, b) in [(1, 2), (0, 4), (3, 7)] {
            var lines = log.lines
            lines.swapAt(Self.line(ofRecord: a), Self.line(ofRecord: b))
            #expect(Self.place(Self.failure(lines)) == .record(a), "records \(a) and \(b) swapped")
        }
    }

    @Test("a raw line inserted (a copy of a record, or a line without seq): it is named")
    func insertedRawLine() async throws {
        let log = try await Self.log()
        var lines = log.lines
        lines.insert(lines[Self.line(ofRecord: 1)], at: Self.line(ofRecord: 2))
        #expect(Self.place(Self.failure(lines)) == .record(2))
        lines = log.lines
        lines.insert(#"{"time":"2026-01-01T00:00:00.000Z","client":"shop"}"#, at: Self.line(ofRecord: 4))
        #expect(Self.place(Self.failure(lines)) == .record(4))
        // A well-formed record with the right seq but another prev.
        lines = log.lines
        let forged = LedgerEntry(seq: 4, prev: MerkleHash.sha256([4]), record: Self.record(99)).text
        lines.insert(forged, at: Self.line(ofRecord: 4))
        #expect(Self.place(Self.failure(lines)) == .record(4))
    }

    @Test("a record inserted and every later seq and prev recomputed: only the checkpoint after it names it")
    func rechainedInsertion() async throws {
        let log = try await Self.log()
        var objects = (0..<8).map(Self.record)
        objects.insert(Self.record(99), at: 4)
        let lines = Self.rechained(
            objects,
            checkpointLines: [
                3: log.lines[Self.line(ofCheckpoint: 0)], 6: log.lines[Self.line(ofCheckpoint: 1)],
            ])
        #expect(lines.count == 11)
        #expect(Self.failure(Array(lines[..<7])) == nil, "every record before checkpoint 1 follows on")
        #expect(Self.place(Self.failure(lines)) == .checkpoint(1))
        // A record removed and the rest rechained: the same.
        var fewer = (0..<8).map(Self.record)
        fewer.remove(at: 1)
        let shorter = Self.rechained(
            fewer,
            checkpointLines: [
                3: log.lines[Self.line(ofCheckpoint: 0)], 6: log.lines[Self.line(ofCheckpoint: 1)],
            ])
        #expect(Self.place(Self.failure(shorter)) == .checkpoint(0))
    }

    // MARK: LedgerVerifier: tampered checkpoints

    @Test("one byte of a checkpoint line changed: that checkpoint is named")
    func editedCheckpoint() async throws {
        let log = try await Self.log()
        let note = log.checkpoints[1].note
        // The size line, the time and the signature.
        for (old, new) in [("\n6\n", "\n5\n"), ("time 1767225600", "time 1767225601"), ("audit ", "audit x")] {
            var lines = log.lines
            lines[Self.line(ofCheckpoint: 1)] = LedgerLogFile.checkpointLine(Self.replacing(old, with: new, in: note))
            #expect(Self.place(Self.failure(lines)) == .checkpoint(1), "\(old) → \(new)")
        }
    }

    @Test("the log cut short and a checkpoint of the rest re-signed with another key: that checkpoint is named")
    func truncatedAndResigned() async throws {
        let log = try await Self.log()
        var lines = Array(log.lines[..<Self.line(ofRecord: 5)])
        lines.append(try await Self.checkpointLine(log, size: 5, signer: TestKeys.other))
        let error = Self.failure(lines)
        #expect(Self.place(error) == .checkpoint(1))
        #expect(Self.problem(error).contains("signed"))
        // Every checkpoint re-signed with the other key: the first is named.
        let resigned = [
            try await Self.checkpointLine(log, size: 3, signer: TestKeys.other),
            try await Self.checkpointLine(log, size: 5, signer: TestKeys.other),
        ]
        lines[Self.line(ofCheckpoint: 0)] = resigned[0]
        lines[lines.count - 1] = resigned[1]
        #expect(Self.place(Self.failure(lines)) == .checkpoint(0))
        #expect(Self.failure(lines, key: TestKeys.other.address) == nil, "verifies for the other key only")
    }

    @Test("a fork: a second checkpoint of a size already checkpointed, with another root, signed by the key")
    func fork() async throws {
        let log = try await Self.log()
        let other = try await Self.log(records: 3, from: 100)
        let forked = other.lines[Self.line(ofCheckpoint: 0)]
        var lines = log.lines
        lines.append(forked)
        #expect(Self.place(Self.failure(lines)) == .checkpoint(2))
        #expect(Self.problem(Self.failure(lines)).contains("fork"))
        lines = log.lines
        lines.insert(forked, at: Self.line(ofCheckpoint: 0) + 1)
        #expect(Self.place(Self.failure(lines)) == .checkpoint(1))
        #expect(Self.problem(Self.failure(lines)).contains("fork"))
        // The fork alone, in place of the log's own checkpoint: its root is not that of the records.
        lines = log.lines
        lines[Self.line(ofCheckpoint: 0)] = forked
        #expect(Self.place(Self.failure(lines)) == .checkpoint(0))
    }

    @Test("a checkpoint that covers more records than come before it is named")
    func checkpointBeyondRecords() async throws {
        let log = try await Self.log()
        var lines = log.lines
        lines[Self.line(ofCheckpoint: 1)] = try await Self.checkpointLine(log, size: 8)
        #expect(Self.place(Self.failure(lines)) == .checkpoint(1))
        // Moved up one record: checkpoint 1 (size 6) after record 4.
        lines = log.lines
        lines.swapAt(Self.line(ofCheckpoint: 1), Self.line(ofRecord: 5))
        #expect(Self.place(Self.failure(lines)) == .checkpoint(1))
    }

    @Test("checkpoints out of order: the smaller after the larger is named")
    func checkpointsOutOfOrder() async throws {
        let log = try await Self.log()
        let records = (0..<6).map { log.lines[Self.line(ofRecord: $0)] }
        let lines =
            records + [log.lines[Self.line(ofCheckpoint: 1)], log.lines[Self.line(ofCheckpoint: 0)]]
        #expect(Self.place(Self.failure(lines)) == .checkpoint(1))
        #expect(Self.problem(Self.failure(lines)).contains("below"))
        // The same checkpoint twice is not a problem.
        let twice = records + [log.lines[Self.line(ofCheckpoint: 1)], log.lines[Self.line(ofCheckpoint: 1)]]
        #expect(Self.failure(twice) == nil)
    }

    @Test("a checkpoint of another origin, signed by the key under that name, is named")
    func otherOrigin() async throws {
        let log = try await Self.log()
        var lines = log.lines
        lines[Self.line(ofCheckpoint: 1)] = try await Self.checkpointLine(
            log, size: 6, origin: "elsewhere.example/audit")
        #expect(Self.place(Self.failure(lines)) == .checkpoint(1))
    }

    @Test("a checkpoint held outside the log: it verifies when the log has its records, and names a cut")
    func outsideCheckpoint() async throws {
        let log = try await Self.log()
        let outside = try await Self.settings().sign(try Self.settings().checkpoint(of: log.chain)).note
        let summary = try LedgerVerifier.verify(log: Self.bytes(log.lines), key: Self.key, outsideCheckpoint: outside)
        #expect(Self.counts(summary) == [8, 3, 8])
        // The last record cut off: a log that verifies on its own, but not with the outside checkpoint.
        let cut = Array(log.lines.dropLast())
        #expect(Self.failure(cut) == nil)
        let error = Self.failure(cut, outside: outside)
        #expect(Self.place(error) == .checkpoint(2))
        #expect(Self.problem(error).contains("cut short"))
        // Cut back to the first checkpoint: it is numbered after the one left.
        #expect(Self.place(Self.failure(Array(log.lines[..<4]), outside: outside)) == .checkpoint(1))
        // Another key's, or another tree's.
        let foreign = try await Self.settings(TestKeys.other).sign(try Self.settings().checkpoint(of: log.chain)).note
        #expect(Self.place(Self.failure(log.lines, outside: foreign)) == .checkpoint(2))
        let other = try await Self.log(records: 8, from: 100)
        let otherTree = try await Self.settings().sign(try Self.settings().checkpoint(of: other.chain)).note
        #expect(Self.place(Self.failure(log.lines, outside: otherTree)) == .checkpoint(2))
    }

    // MARK: LedgerVerifier: torn lines

    @Test("a torn line followed by the torn-line record is passed over; a garbage line without it is named")
    func tornLines() async throws {
        let log = try await Self.log(records: 2)
        var chain = log.chain
        let torn = #"{"seq":2,"prev":"3f0a"#
        let marker = chain.sealed([
            JSONObject([
                "time": .string("2026-01-01T00:00:01.000Z"), "event": .string("torn-line"),
                "problem": .string("the line before was cut short"),
            ])
        ])
        chain.append(marker)
        let after = chain.sealed([Self.record(3)])
        chain.append(after)
        let signed = try await Self.settings().sign(try Self.settings().checkpoint(of: chain))
        let lines = log.lines + [torn, marker[0].text, after[0].text, LedgerLogFile.checkpointLine(signed.note)]
        #expect(LedgerLogFile.lines(Self.bytes(lines))[2].line == .torn)
        let summary = try LedgerVerifier.verify(log: Self.bytes(lines), key: Self.key)
        #expect(Self.counts(summary) == [4, 1, 4])
        // Without the marker after it, the garbage is read as record 2.
        let unmarked = log.lines + [torn, after[0].text]
        #expect(Self.place(Self.failure(unmarked)) == .record(2))
        // Whatever line comes before the torn-line record is not a leaf, even a whole one (a crash may cut only
        // the newline): a copy of record 1 there is passed over, and the chain still says what the leaves are.
        let copied = log.lines + [log.lines[1], marker[0].text]
        #expect(try LedgerVerifier.verify(log: Self.bytes(copied), key: Self.key).records == 3)
    }

    // MARK: LedgerReceipt

    /// The receipt of record `leaf` of `log` for its checkpoint `k`.
    static func receipt(_ log: Log, leaf: Int, checkpoint k: Int) throws -> LedgerReceipt {
        let signed = log.checkpoints[k]
        let proof = try log.chain.tree.inclusionProof(forLeafAt: leaf, treeSize: signed.checkpoint.size)
        return LedgerReceipt(
            index: leaf, entry: log.lines[line(ofRecord: leaf)], treeSize: signed.checkpoint.size,
            inclusion: proof.hashes, checkpoint: signed.note, policySet: policySet(leaf))
    }

    /// The error checking `receipt` against `note` (its own checkpoint by default) and `key` gives, or `nil`.
    static func failure(_ receipt: LedgerReceipt, against note: String? = nil, key: Address = key)
        -> LedgerReceiptError?
    {
        do {
            try receipt.verify(against: note ?? receipt.checkpoint, key: key)
            return nil
        } catch { return error }
    }

    @Test("a receipt verifies against its checkpoint, for every record a checkpoint covers")
    func receiptVerifies() async throws {
        let log = try await Self.log()
        for k in 0..<2 {
            for leaf in 0..<(3 * (k + 1)) {
                let receipt = try Self.receipt(log, leaf: leaf, checkpoint: k)
                let checkpoint = try receipt.verify(against: receipt.checkpoint, key: Self.key)
                #expect(checkpoint == log.checkpoints[k].checkpoint)
            }
        }
        // A record without a policy set: the receipt's is nil.
        var chain = LedgerChain()
        let entries = chain.sealed([JSONObject(["client": .string("shop")])])
        chain.append(entries)
        let signed = try await Self.settings().sign(try Self.settings().checkpoint(of: chain))
        let bare = LedgerReceipt(
            index: 0, entry: entries[0].text, treeSize: 1, inclusion: [], checkpoint: signed.note, policySet: nil)
        #expect(Self.failure(bare) == nil)
        let claimed = LedgerReceipt(
            index: 0, entry: entries[0].text, treeSize: 1, inclusion: [], checkpoint: signed.note,
            policySet: Self.policySet(0))
        #expect(Self.failure(claimed) == .policySetMismatch)
    }

    @Test("a receipt whose entry was changed is refused: not included, or not a record")
    func receiptEntryChanged() async throws {
        let receipt = try Self.receipt(try await Self.log(), leaf: 4, checkpoint: 1)
        let edited = LedgerReceipt(
            index: 4, entry: Self.replacing(#""client":"shop""#, with: #""client":"shoq""#, in: receipt.entry),
            treeSize: 6, inclusion: receipt.inclusion, checkpoint: receipt.checkpoint, policySet: receipt.policySet)
        guard case .notIncluded? = Self.failure(edited) else {
            Issue.record("expected notIncluded, got \(String(describing: Self.failure(edited)))")
            return
        }
        let garbage = LedgerReceipt(
            index: 4, entry: "garbage", treeSize: 6, inclusion: receipt.inclusion, checkpoint: receipt.checkpoint,
            policySet: receipt.policySet)
        guard case .entry? = Self.failure(garbage) else {
            Issue.record("expected entry, got \(String(describing: Self.failure(garbage)))")
            return
        }
    }

    @Test("a receipt whose index was changed is refused: the entry's seq is not the index, or not included")
    func receiptIndexChanged() async throws {
        let log = try await Self.log()
        let receipt = try Self.receipt(log, leaf: 4, checkpoint: 1)
        let moved = LedgerReceipt(
            index: 3, entry: receipt.entry, treeSize: 6, inclusion: receipt.inclusion,
            checkpoint: receipt.checkpoint, policySet: receipt.policySet)
        guard case .entry? = Self.failure(moved) else {
            Issue.record("expected entry, got \(String(describing: Self.failure(moved)))")
            return
        }
        // Record 3 with record 4's proof: its seq is right, the proof is not.
        let other = try Self.receipt(log, leaf: 3, checkpoint: 1)
        let mixed = LedgerReceipt(
            index: 3, entry: other.entry, treeSize: 6, inclusion: receipt.inclusion,
            checkpoint: receipt.checkpoint, policySet: other.policySet)
        guard case .notIncluded? = Self.failure(mixed) else {
            Issue.record("expected notIncluded, got \(String(describing: Self.failure(mixed)))")
            return
        }
    }

    @Test("a receipt whose proof was changed is refused as not included", arguments: [0, 1, 2])
    func receiptProofChanged(position: Int) async throws {
        let receipt = try Self.receipt(try await Self.log(), leaf: 1, checkpoint: 1)
        #expect(receipt.inclusion.count == 3)
        var hashes = receipt.inclusion
        hashes[position] = LedgerTestHelpers.flipped(hashes[position], bit: 7 * position + 3)
        let changed = LedgerReceipt(
            index: 1, entry: receipt.entry, treeSize: 6, inclusion: hashes, checkpoint: receipt.checkpoint,
            policySet: receipt.policySet)
        guard case .notIncluded? = Self.failure(changed) else {
            Issue.record("expected notIncluded, got \(String(describing: Self.failure(changed)))")
            return
        }
        hashes = receipt.inclusion
        hashes.remove(at: position)
        let shorter = LedgerReceipt(
            index: 1, entry: receipt.entry, treeSize: 6, inclusion: hashes, checkpoint: receipt.checkpoint,
            policySet: receipt.policySet)
        guard case .notIncluded? = Self.failure(shorter) else {
            Issue.record("expected notIncluded, got \(String(describing: Self.failure(shorter)))")
            return
        }
    }

    @Test("a receipt whose policy set was changed or dropped is refused")
    func receiptPolicySetChanged() async throws {
        let receipt = try Self.receipt(try await Self.log(), leaf: 4, checkpoint: 1)
        for policySet in [Self.policySet(5), nil] {
            let changed = LedgerReceipt(
                index: 4, entry: receipt.entry, treeSize: 6, inclusion: receipt.inclusion,
                checkpoint: receipt.checkpoint, policySet: policySet)
            #expect(Self.failure(changed) == .policySetMismatch)
        }
    }

    @Test("a receipt whose tree size was changed, or checked against another size's checkpoint, is refused")
    func receiptSizeChanged() async throws {
        let log = try await Self.log()
        let receipt = try Self.receipt(log, leaf: 1, checkpoint: 1)
        let changed = LedgerReceipt(
            index: 1, entry: receipt.entry, treeSize: 7, inclusion: receipt.inclusion,
            checkpoint: receipt.checkpoint, policySet: receipt.policySet)
        #expect(Self.failure(changed) == .sizeMismatch(receipt: 7, checkpoint: 6))
        #expect(Self.failure(receipt, against: log.checkpoints[0].note) == .sizeMismatch(receipt: 6, checkpoint: 3))
    }

    @Test("a receipt checked against another key's checkpoint, or against no checkpoint, is refused")
    func receiptOtherKey() async throws {
        let log = try await Self.log()
        let receipt = try Self.receipt(log, leaf: 4, checkpoint: 1)
        let foreign = try await Self.settings(TestKeys.other).sign(log.checkpoints[1].checkpoint).note
        guard case .checkpoint? = Self.failure(receipt, against: foreign) else {
            Issue.record("expected checkpoint, got \(String(describing: Self.failure(receipt, against: foreign)))")
            return
        }
        guard case .checkpoint? = Self.failure(receipt, key: TestKeys.other.address) else {
            Issue.record("expected checkpoint for the other key's address")
            return
        }
        guard case .checkpoint? = Self.failure(receipt, against: "not a note") else {
            Issue.record("expected checkpoint for a garbage note")
            return
        }
        #expect(Self.failure(receipt, against: foreign, key: TestKeys.other.address) == nil)
    }

    @Test("a receipt's JSON reads back as the same receipt, with and without a policy set")
    func receiptJSONRoundTrip() async throws {
        let receipt = try Self.receipt(try await Self.log(), leaf: 4, checkpoint: 1)
        let text = JSONValue.object(receipt.json).serialized
        #expect(try LedgerReceipt(json: try JSONValue(parsing: text)) == receipt)
        #expect(receipt.json["index"] == .number("4") && receipt.json["treeSize"] == .number("6"))
        #expect(receipt.json["policySet"] == .string(LedgerEntry.plainHex(Self.policySet(4))))
        let bare = LedgerReceipt(
            index: 4, entry: receipt.entry, treeSize: 6, inclusion: receipt.inclusion,
            checkpoint: receipt.checkpoint, policySet: nil)
        #expect(bare.json["policySet"] == .null)
        #expect(try LedgerReceipt(json: .object(bare.json)) == bare)
        var missing = bare.json
        missing.members.removeAll { $0.key == "policySet" }
        #expect(try LedgerReceipt(json: .object(missing)) == bare)
        // Upper-case hex reads as the same hashes.
        var upper = receipt.json
        upper["policySet"] = .string(LedgerEntry.plainHex(Self.policySet(4)).uppercased())
        #expect(try LedgerReceipt(json: .object(upper)) == receipt)
    }

    @Test(
        "a receipt's JSON with a member missing or malformed is refused, naming the member",
        arguments: [
            ("index", JSONValue.number("-1")), ("index", .string("4")), ("index", .number("4.5")), ("index", nil),
            ("treeSize", .string("6")), ("treeSize", nil), ("entry", .number("1")), ("entry", nil),
            ("checkpoint", .array([])), ("checkpoint", nil), ("inclusion", .string("abc")), ("inclusion", nil),
            ("inclusion[1]", .string("zz")), ("inclusion[1]", .number("1")),
            ("inclusion[1]", .string("0x" + String(repeating: "a", count: 62))),
            ("policySet", .number("1")), ("policySet", .string("abcd")), ("policySet", .bool(true)),
        ] as [(String, JSONValue?)])
    func receiptJSONMalformed(member: String, value: JSONValue?) async throws {
        let receipt = try Self.receipt(try await Self.log(), leaf: 4, checkpoint: 1)
        var object = receipt.json
        if member == "inclusion[1]" {
            var hashes = receipt.inclusion.map { JSONValue.string(LedgerEntry.plainHex($0)) }
            hashes[1] = value ?? .null
            object["inclusion"] = .array(hashes)
        } else if let value {
            object[member] = value
        } else {
            object.members.removeAll { $0.key == member }
        }
        do {
            _ = try LedgerReceipt(json: .object(object))
            Issue.record("\(member) = \(String(describing: value)) was accepted")
        } catch {
            guard case .malformed(let problem) = error else {
                Issue.record("expected malformed, got \(error)")
                return
            }
            #expect(problem.hasPrefix(member + " "), "\(problem)")
        }
    }

    @Test("a receipt that is not a JSON object is refused")
    func receiptNotObject() {
        for value in [JSONValue.array([]), .string("{}"), .null] {
            guard case .malformed? = Self.malformed(value) else {
                Issue.record("\(value) was not refused as malformed")
                continue
            }
        }
    }

    /// The error reading a receipt from `value` gives, or `nil`.
    static func malformed(_ value: JSONValue) -> LedgerReceiptError? {
        do {
            _ = try LedgerReceipt(json: value)
            return nil
        } catch { return error }
    }
}
