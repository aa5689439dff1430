import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitService
import SignerKitTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The audit log file as a tamper-evident ledger (issue #39): records are leaves chained by `seq` and `prev`,
/// a signed checkpoint line follows every third record, a reopened log continues the chain, and
/// ``LedgerVerifier`` names the first record or checkpoint of a file that was changed on disk. Checkpoints are
/// signed by the fixed test key `TestKeys.wallet` at the time of a manual clock.
@Suite("Audit log file as a ledger: chain, checkpoints, receipts, tampering")
struct AuditLogLedgerTests {
    static let origin = "signer.example.com/audit"

    /// The time checkpoints carry: it moves only when a test says so.
    final class DateClock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_767_225_600))
        /// The current time.
        var now: Date { date.withLock { $0 } }
        /// Moves the clock on.
        func advance(seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    /// A checkpoint every 3 records, signed by `signer` (the checkpoint key by default) at `clock`'s time.
    static func settings(_ clock: DateClock, signer: any PrehashSigner = TestKeys.wallet) -> AuditLedgerSettings {
        AuditLedgerSettings(signer: signer, origin: origin, checkpointEvery: 3, now: { clock.now })
    }

    /// The checkpoint key's address.
    static var key: Address { TestKeys.wallet.address }

    /// A new file in a fresh temporary directory.
    static func temporaryPath() throws -> String { try StoreBackend.temporaryFile() + ".jsonl" }

    /// The file's bytes.
    static func contents(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The file's lines (without newlines; a last line without its newline is one too).
    static func lines(_ path: String) throws -> [String] {
        var lines = String(decoding: try contents(path), as: UTF8.self).components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Writes `lines`, each with its newline, as the whole file.
    static func store(_ lines: [String], to path: String) throws {
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The checkpoint lines of the file's bytes, as classified.
    static func checkpointNotes(_ bytes: [UInt8]) -> [String] {
        LedgerLogFile.lines(bytes).compactMap {
            if case .checkpoint(let note) = $0.line { return note }
            return nil
        }
    }

    /// A summary's records, checkpoints and covered records.
    static func counts(_ summary: LedgerVerifier.Summary) -> [Int] {
        [summary.records, summary.checkpoints, summary.coveredRecords]
    }

    /// The error verifying `bytes` against the checkpoint key gives, or `nil` when they verify.
    static func failure(_ bytes: [UInt8]) -> LedgerVerificationError? {
        do {
            _ = try LedgerVerifier.verify(log: bytes, key: key)
            return nil
        } catch { return error }
    }

    /// The record or checkpoint `error` names.
    static func place(_ error: LedgerVerificationError?) -> LedgerProblem? { error?.located }

    /// The error opening the ledger at `path` gives, or `nil` when it opens.
    static func openFailure(_ path: String, _ settings: AuditLedgerSettings) -> ServiceConfigurationError? {
        do {
            _ = try AuditLog(path: path, ledger: settings)
            return nil
        } catch { return error }
    }

    /// Appends the one-record requests `r<n>` for `range`, in order; whether every append succeeded.
    static func appendRequests(_ log: AuditLog, _ range: Range<Int>) async -> Bool {
        var all = true
        for n in range {
            all = await log.append([CallRecord(client: "shop", method: "m\(n)")], requestID: "r\(n)", at: Date()) && all
        }
        return all
    }

    /// A ledger file of 8 one-record requests r0 … r7, appended in order: lines r0 r1 r2 cp0 r3 r4 r5 cp1 r6 r7.
    static func eightRecords(_ clock: DateClock = DateClock()) async throws -> String {
        let path = try temporaryPath()
        let log = try AuditLog(path: path, ledger: settings(clock))
        #expect(await appendRequests(log, 0..<8))
        return path
    }

    /// The line of record `n` in ``eightRecords(_:)``'s file.
    static func line(ofRecord n: Int) -> Int { n + n / 3 }
    /// The line of checkpoint `k` in ``eightRecords(_:)``'s file.
    static func line(ofCheckpoint k: Int) -> Int { 4 * k + 3 }

    /// `text` with its first `old` replaced by `new` (recorded as an issue when `old` is not in it).
    static func replacing(_ old: String, with new: String, in text: String) -> String {
        guard let range = text.range(of: old) else {
            Issue.record("\(old) is not in \(text)")
            return text
        }
        return text.replacingCharacters(in: range, with: new)
    }

    // MARK: writing

    @Test("sequential appends: records chained by seq and prev, a checkpoint line after every third")
    func layout() async throws {
        let path = try await Self.eightRecords()
        let lines = try Self.lines(path)
        #expect(lines.count == 10)
        for n in 0..<8 {
            let entry = try LedgerEntry(parsing: lines[Self.line(ofRecord: n)])
            #expect(entry.seq == n)
            #expect(entry.object["requestId"] == .string("r\(n)"))
            #expect(entry.text.hasPrefix(#"{"seq":\#(n),"prev":""#))
        }
        let notes = Self.checkpointNotes(try Self.contents(path))
        #expect(notes.count == 2)
        #expect(lines[Self.line(ofCheckpoint: 0)] == LedgerLogFile.checkpointLine(notes[0]))
        #expect(lines[Self.line(ofCheckpoint: 1)] == LedgerLogFile.checkpointLine(notes[1]))
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [8, 2, 6])
    }

    @Test("8 tasks × 10 requests × 1–3 records at once: the file verifies, every record once, requests whole")
    func concurrentAppends() async throws {
        let path = try Self.temporaryPath()
        let log = try AuditLog(path: path, ledger: Self.settings(DateClock()))
        let results = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var all = true
                    for request in 0..<10 {
                        let records = (0..<(request % 3 + 1)).map { CallRecord(client: "c\(task)", method: "m\($0)") }
                        all = await log.append(records, requestID: "r\(task)-\(request)", at: Date()) && all
                    }
                    return all
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
        let recordsPerTask = (0..<10).reduce(0) { $0 + $1 % 3 + 1 }
        let bytes = try Self.contents(path)
        let summary = try LedgerVerifier.verify(log: bytes, key: Self.key)
        #expect(summary.records == 8 * recordsPerTask)
        let notes = Self.checkpointNotes(bytes)
        #expect(summary.checkpoints == notes.count)
        #expect(notes.count >= 1 && notes.count <= summary.records / 3)
        // A checkpoint is signed only when 3 records were added since the one before.
        let sizes = try notes.map { try Checkpoint(parsing: try SignedNote(parsing: $0).body).size }
        #expect(zip(sizes, sizes.dropFirst()).allSatisfy { $1 - $0 >= 3 }, "\(sizes)")
        #expect(sizes.first.map { $0 >= 3 } == true)
        // Every record once; a request's records together and in call order.
        var records: [LedgerEntry] = []
        for located in LedgerLogFile.lines(bytes) {
            if case .record(let text) = located.line { records.append(try LedgerEntry(parsing: text)) }
        }
        let keys = records.map {
            "\($0.object["requestId"]?.stringValue ?? "?")#\($0.object["call"]?.serialized ?? "?")"
        }
        #expect(Set(keys).count == keys.count && keys.count == 8 * recordsPerTask)
        for (index, record) in records.enumerated() where record.object["call"] != .number("0") {
            #expect(records[index - 1].object["requestId"] == record.object["requestId"])
        }
        // A request's receipts: one per record, each verifying against its checkpoint.
        let receipts = try await log.receipts(requestID: "r5-8")
        #expect(receipts.count == 3)
        for receipt in receipts {
            try receipt.verify(against: receipt.checkpoint, key: Self.key)
            #expect(try LedgerEntry(parsing: receipt.entry).object["requestId"] == .string("r5-8"))
        }
        #expect(receipts.map(\.index) == Array(receipts[0].index..<(receipts[0].index + 3)))
    }

    @Test("a reopened log continues the chain: seq goes on, old checkpoints and receipts still serve, it verifies")
    func reopenContinues() async throws {
        let clock = DateClock()
        let path = try Self.temporaryPath()
        do {
            let log = try AuditLog(path: path, ledger: Self.settings(clock))
            #expect(await Self.appendRequests(log, 0..<5))
        }
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [5, 1, 3])
        let log = try AuditLog(path: path, ledger: Self.settings(clock))
        #expect(await Self.appendRequests(log, 5..<8))
        let lines = try Self.lines(path)
        #expect(lines.count == 10, "the same file as eight appends to one log")
        for n in 5..<8 { #expect(try LedgerEntry(parsing: lines[Self.line(ofRecord: n)]).seq == n) }
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [8, 2, 6])
        // A record written before the reopen, proved by the checkpoint read back and by the new one.
        let old = try await log.receipt(leaf: 1, treeSize: 3)
        #expect(old.checkpoint == Self.checkpointNotes(try Self.contents(path))[0])
        try old.verify(against: old.checkpoint, key: Self.key)
        let receipts = try await log.receipts(requestID: "r1")
        #expect(receipts.map(\.treeSize) == [6])
        try receipts[0].verify(against: receipts[0].checkpoint, key: Self.key)
        // A third open: nothing to repair, nothing added.
        let before = try Self.contents(path)
        _ = try AuditLog(path: path, ledger: Self.settings(clock))
        #expect(try Self.contents(path) == before)
    }

    // MARK: refused at open

    @Test("a file with a line written without a ledger is refused at open, at auditLog")
    func refusesPlainLines() async throws {
        let clock = DateClock()
        let plain = try Self.temporaryPath()
        do {
            let log = try AuditLog(path: plain)
            #expect(await log.append([CallRecord(client: "shop", method: "m")], requestID: "r0", at: Date()))
        }
        #expect(Self.openFailure(plain, Self.settings(clock))?.path == "auditLog")
        // A ledger that a log without a ledger then appended to.
        let mixed = try await Self.eightRecords(clock)
        do {
            let log = try AuditLog(path: mixed)
            #expect(await log.append([CallRecord(client: "shop", method: "m")], requestID: "r8", at: Date()))
        }
        let error = Self.openFailure(mixed, Self.settings(clock))
        #expect(error?.path == "auditLog")
        // Refusing touched nothing.
        #expect(try Self.lines(mixed).count == 11)
    }

    @Test("a file whose chain was edited, cut or re-signed with another key is refused at open")
    func refusesEditedChain() async throws {
        let clock = DateClock()
        let original = try Self.lines(try await Self.eightRecords(clock))
        var variants: [(String, [String])] = []
        var lines = original
        lines[Self.line(ofRecord: 1)] = Self.replacing(
            #""client":"shop""#, with: #""client":"shoq""#, in: lines[Self.line(ofRecord: 1)])
        variants.append(("record 1 edited", lines))
        lines = original
        lines.remove(at: Self.line(ofRecord: 4))
        variants.append(("record 4 dropped", lines))
        lines = original
        lines.swapAt(Self.line(ofRecord: 6), Self.line(ofRecord: 7))
        variants.append(("records 6 and 7 swapped", lines))
        lines = original
        lines.insert(lines[Self.line(ofRecord: 0)], at: Self.line(ofRecord: 1))
        variants.append(("record 0 twice", lines))
        lines = original
        lines[Self.line(ofCheckpoint: 0)] = Self.replacing(
            #"\n3\n"#, with: #"\n2\n"#, in: lines[Self.line(ofCheckpoint: 0)])
        variants.append(("checkpoint 0 edited", lines))
        let foreign = try await Self.settings(clock, signer: TestKeys.other).sign(
            try Self.settings(clock).checkpoint(of: try Self.chain(original), treeSize: 6))
        lines = original
        lines[Self.line(ofCheckpoint: 1)] = LedgerLogFile.checkpointLine(foreign.note)
        variants.append(("checkpoint 1 re-signed with another key", lines))
        for (name, lines) in variants {
            let path = try Self.temporaryPath()
            try Self.store(lines, to: path)
            #expect(Self.openFailure(path, Self.settings(clock))?.path == "auditLog", "\(name)")
            #expect(Self.failure(try Self.contents(path)) != nil, "\(name)")
        }
    }

    /// The chain of the records among `lines`.
    static func chain(_ lines: [String]) throws -> LedgerChain {
        var chain = LedgerChain()
        for located in LedgerLogFile.lines(Array(lines.map { $0 + "\n" }.joined().utf8)) {
            if case .record(let text) = located.line { try chain.adopt(text) }
        }
        return chain
    }

    // MARK: torn lines

    @Test("a torn last line is repaired at open by the torn-line record, a ledger record; the file verifies")
    func tornLastLine() async throws {
        let clock = DateClock()
        let path = try Self.temporaryPath()
        do {
            let log = try AuditLog(path: path, ledger: Self.settings(clock))
            #expect(await Self.appendRequests(log, 0..<4))
        }
        // r0 r1 r2 cp0 r3, then a record cut short by a crash.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"seq":4,"prev":"3f0a9c"#.utf8))
        try handle.close()
        let log = try AuditLog(path: path, ledger: Self.settings(clock))
        let lines = try Self.lines(path)
        #expect(lines.count == 7)
        let marker = try LedgerEntry(parsing: lines[6])
        #expect(marker.seq == 4 && marker.object["event"] == .string("torn-line"))
        #expect(LedgerLogFile.lines(try Self.contents(path))[5].line == .torn)
        // The next record follows the marker; with it a checkpoint of 6 is due.
        #expect(await Self.appendRequests(log, 4..<6))
        #expect(try LedgerEntry(parsing: try Self.lines(path)[7]).seq == 5)
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [7, 2, 6])
        // Reopened again: nothing to repair, the chain goes on.
        let again = try AuditLog(path: path, ledger: Self.settings(clock))
        #expect(await Self.appendRequests(again, 6..<7))
        let after = try Self.contents(path)
        #expect(String(decoding: after, as: UTF8.self).components(separatedBy: "torn-line").count == 2)
        #expect(Self.counts(try LedgerVerifier.verify(log: after, key: Self.key)) == [8, 2, 6])
    }

    // MARK: receipts

    @Test("receipts by request id and by leaf verify against their checkpoint, the one in the file")
    func receipts() async throws {
        let clock = DateClock()
        let path = try await Self.eightRecords(clock)
        let log = try AuditLog(path: path, ledger: Self.settings(clock))
        let notes = Self.checkpointNotes(try Self.contents(path))
        let lines = try Self.lines(path)
        let byRequest = try await log.receipts(requestID: "r4")
        #expect(byRequest.count == 1)
        #expect(byRequest[0].index == 4 && byRequest[0].treeSize == 6 && byRequest[0].checkpoint == notes[1])
        #expect(byRequest[0].entry == lines[Self.line(ofRecord: 4)])
        try byRequest[0].verify(against: notes[1], key: Self.key)
        for (leaf, size, note) in [(0, 3, notes[0]), (2, 3, notes[0]), (0, 6, notes[1]), (5, 6, notes[1])] {
            let receipt = try await log.receipt(leaf: leaf, treeSize: size)
            #expect(receipt.entry == lines[Self.line(ofRecord: leaf)])
            #expect(receipt.checkpoint == note)
            try receipt.verify(against: note, key: Self.key)
        }
        // A request of several records: a receipt for each, in call order.
        let records = (0..<2).map { CallRecord(client: "shop", method: "m\($0)") }
        #expect(await log.append(records, requestID: "pair", at: Date()))
        let pair = try await log.receipts(requestID: "pair")
        #expect(pair.map(\.index) == [8, 9])
        for receipt in pair { try receipt.verify(against: receipt.checkpoint, key: Self.key) }
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [10, 3, 10])
    }

    @Test(
        "a receipt for a record no checkpoint covers signs a checkpoint of the current size, once, at the clock's time")
    func receiptOfUncoveredRecord() async throws {
        let clock = DateClock()
        let path = try await Self.eightRecords(clock)
        let log = try AuditLog(path: path, ledger: Self.settings(clock))
        clock.advance(seconds: 90)
        #expect(Self.checkpointNotes(try Self.contents(path)).count == 2)
        let receipt = try await log.receipts(requestID: "r7")[0]
        #expect(receipt.index == 7 && receipt.treeSize == 8)
        let checkpoint = try receipt.verify(against: receipt.checkpoint, key: Self.key)
        #expect(checkpoint.time == Int64(clock.now.timeIntervalSince1970))
        var notes = Self.checkpointNotes(try Self.contents(path))
        #expect(notes.count == 3 && notes[2] == receipt.checkpoint)
        #expect(try Self.lines(path).last == LedgerLogFile.checkpointLine(receipt.checkpoint))
        // Asked again, and for the record before it: the same checkpoint, no new line.
        #expect(try await log.receipts(requestID: "r7") == [receipt])
        #expect(try await log.receipt(leaf: 6, treeSize: nil).checkpoint == receipt.checkpoint)
        notes = Self.checkpointNotes(try Self.contents(path))
        #expect(notes.count == 3)
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [8, 3, 8])
    }

    @Test("a receipt for a size no checkpoint has, a leaf the log lacks, or an unknown request id is refused")
    func receiptRefused() async throws {
        let path = try await Self.eightRecords()
        let log = try AuditLog(path: path, ledger: Self.settings(DateClock()))
        let before = try Self.contents(path)
        await #expect(throws: AuditLedgerError.unknownCheckpoint(5)) { try await log.receipt(leaf: 0, treeSize: 5) }
        // Checkpoint 0 (size 3) does not cover record 3.
        await #expect(throws: AuditLedgerError.unknownCheckpoint(3)) { try await log.receipt(leaf: 3, treeSize: 3) }
        await #expect(throws: AuditLedgerError.unknownLeaf(8, size: 8)) {
            try await log.receipt(leaf: 8, treeSize: nil)
        }
        await #expect(throws: AuditLedgerError.unknownLeaf(-1, size: 8)) {
            try await log.receipt(leaf: -1, treeSize: 3)
        }
        await #expect(throws: AuditLedgerError.unknownRequest("nope")) { try await log.receipts(requestID: "nope") }
        #expect(try Self.contents(path) == before, "nothing was signed")
    }

    // MARK: the file tampered with on disk

    /// Writes `lines` as a file and verifies what is read back from disk.
    static func verifyOnDisk(_ lines: [String]) throws -> LedgerVerificationError? {
        let path = try temporaryPath()
        try store(lines, to: path)
        return failure(try contents(path))
    }

    @Test("the file tampered with on disk: the verifier names the first bad record or checkpoint")
    func tamperedOnDisk() async throws {
        let clock = DateClock()
        let original = try Self.lines(try await Self.eightRecords(clock))
        #expect(try Self.verifyOnDisk(original) == nil)
        let settings = Self.settings(clock)

        // One byte of a record, JSON kept: the next record's prev; for the last one a checkpoint covers, that
        // checkpoint.
        var lines = original
        lines[Self.line(ofRecord: 1)] = Self.replacing(
            #""client":"shop""#, with: #""client":"shoq""#, in: lines[Self.line(ofRecord: 1)])
        #expect(Self.place(try Self.verifyOnDisk(lines)) == .record(2))
        lines = original
        lines[Self.line(ofRecord: 5)] = Self.replacing(#""method":"m5""#, with: #""method":"m6""#, in: lines[6])
        #expect(Self.place(try Self.verifyOnDisk(lines)) == .checkpoint(1))
        // One byte of a record, JSON broken.
        lines = original
        lines[Self.line(ofRecord: 4)] = String(lines[Self.line(ofRecord: 4)].dropLast()) + "]"
        #expect(Self.place(try Self.verifyOnDisk(lines)) == .record(4))
        // A line dropped.
        lines = original
        lines.remove(at: Self.line(ofRecord: 1))
        #expect(Self.place(try Self.verifyOnDisk(lines)) == .record(1))
        // Two lines swapped.
        lines = original
        lines.swapAt(Self.line(ofRecord: 3), Self.line(ofRecord: 4))
        #expect(Self.place(try Self.verifyOnDisk(lines)) == .record(3))
        // A line inserted.
        lines = original
        lines.insert(lines[Self.line(ofRecord: 6)], at: Self.line(ofRecord: 7))
        #expect(Self.place(try Self.verifyOnDisk(lines)) == .record(7))
        // Cut after record 4, and a checkpoint of the 5 left signed by another key.
        lines = Array(original[..<Self.line(ofRecord: 5)])
        let chain = try Self.chain(lines)
        let resigned = try await Self.settings(clock, signer: TestKeys.other).sign(
            try settings.checkpoint(of: chain, treeSize: 5))
        lines.append(LedgerLogFile.checkpointLine(resigned.note))
        #expect(Self.place(try Self.verifyOnDisk(lines)) == .checkpoint(1))
        // A fork: another checkpoint of size 3, of other records, signed by the right key.
        var other = LedgerChain()
        other.append(other.sealed((0..<3).map { JSONObject(["forged": .number(String($0))]) }))
        let fork = try await settings.sign(try settings.checkpoint(of: other))
        lines = original
        lines.append(LedgerLogFile.checkpointLine(fork.note))
        #expect(Self.place(try Self.verifyOnDisk(lines)) == .checkpoint(2))
    }

    // MARK: failed writes

    /// Whether a test's writer fails.
    final class Switch: Sendable {
        private let state: Mutex<Bool>
        /// A switch that is `on` at first.
        init(_ on: Bool) { state = Mutex(on) }
        /// Whether it is on.
        var on: Bool {
            get { state.withLock { $0 } }
            set { state.withLock { $0 = newValue } }
        }
    }

    /// A writer that writes for real until `failing` is on, then writes half the text and fails (a full disk);
    /// with `checkpointsOnly`, only checkpoint lines fail.
    static func writer(_ failing: Switch, checkpointsOnly: Bool = false) -> @Sendable (String, Int32) -> Bool {
        { text, descriptor in
            let bytes = Array(text.utf8)
            let fails = failing.on && (!checkpointsOnly || text.hasPrefix(#"{"event":"checkpoint""#))
            guard fails else {
                return bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) == $0.count }
            }
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count / 2) }
            return false
        }
    }

    @Test("a failed record write: the chain stays as it was, the log refuses appends, a reopened log verifies")
    func failedRecordWrite() async throws {
        let clock = DateClock()
        let path = try Self.temporaryPath()
        let failing = Switch(false)
        do {
            let log = try AuditLog(path: path, ledger: Self.settings(clock), writer: Self.writer(failing))
            #expect(await Self.appendRequests(log, 0..<2))
            let whole = try Self.contents(path)
            failing.on = true
            #expect(await Self.appendRequests(log, 2..<3) == false)
            #expect(try Self.contents(path) == whole, "the half line was cut back off")
            failing.on = false
            #expect(await Self.appendRequests(log, 3..<4) == false, "a failed log refuses every later append")
            #expect(try Self.contents(path) == whole)
            await #expect(throws: AuditLedgerError.self) { try await log.receipts(requestID: "r2") }
        }
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [2, 0, 0])
        let log = try AuditLog(path: path, ledger: Self.settings(clock))
        #expect(await Self.appendRequests(log, 2..<3))
        let lines = try Self.lines(path)
        #expect(lines.count == 4, "r0 r1 r2 cp0")
        #expect(try LedgerEntry(parsing: lines[2]).seq == 2)
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [3, 1, 3])
    }

    @Test("a failed checkpoint write: the log refuses appends, its records stay whole, a reopened log verifies")
    func failedCheckpointWrite() async throws {
        let clock = DateClock()
        let path = try Self.temporaryPath()
        let failing = Switch(true)
        do {
            let log = try AuditLog(
                path: path, ledger: Self.settings(clock), writer: Self.writer(failing, checkpointsOnly: true))
            #expect(await Self.appendRequests(log, 0..<2))
            // The third record is written; its checkpoint is not, and the log fails.
            #expect(await Self.appendRequests(log, 2..<3) == false)
            #expect(await Self.appendRequests(log, 3..<4) == false)
        }
        #expect(try Self.lines(path).count == 3, "r0 r1 r2, no part of a checkpoint line")
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [3, 0, 0])
        let log = try AuditLog(path: path, ledger: Self.settings(clock))
        #expect(await Self.appendRequests(log, 3..<4))
        #expect(try LedgerEntry(parsing: try Self.lines(path)[3]).seq == 3)
        #expect(Self.counts(try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)) == [4, 1, 4])
    }
    // MARK: a crash before the last newline, checkpoints due while one is signed, a mismatch found at open

    /// A checkpoint key whose first signature waits until the test lets it go.
    final class GatedSigner: PrehashSigner {
        /// Yields when the first signature is asked for.
        let entered = AsyncStream<Void>.makeStream()
        /// The first signature goes on once this yields.
        let release = AsyncStream<Void>.makeStream()
        private let calls = Mutex(0)
        /// The checkpoint key's address.
        var address: Address { TestKeys.wallet.address }
        /// Signs with the checkpoint key, the first time once ``release`` yields.
        func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
            let first = calls.withLock { calls in
                calls += 1
                return calls == 1
            }
            if first {
                entered.continuation.yield()
                for await _ in release.stream { break }
            }
            return try await TestKeys.wallet.sign(prehash: prehash)
        }
    }
}

extension AuditLogLedgerTests {
    @Test("a ledger cut just before its last newline reopens, and the file still verifies after")
    func cutBeforeLastNewline() async throws {
        let clock = DateClock()
        let path = try await Self.eightRecords(clock)
        var bytes = try Self.contents(path)
        #expect(bytes.removeLast() == UInt8(ascii: "\n"))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // Record 7 is whole but has no newline: the open leaves it out of the chain and writes the torn-line
        // record after it (as record 7), so the line it cut is not a leaf.
        let log = try AuditLog(path: path, ledger: Self.settings(clock))
        #expect(await Self.appendRequests(log, 8..<9))
        _ = try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)
        _ = try AuditLog(path: path, ledger: Self.settings(clock))
    }

    @Test("records appended while a checkpoint is being signed get their checkpoint when it is done")
    func checkpointDueWhileSigning() async throws {
        let clock = DateClock()
        let path = try Self.temporaryPath()
        let signer = GatedSigner()
        let log = try AuditLog(path: path, ledger: Self.settings(clock, signer: signer))
        let first = Task {
            await log.append((0..<3).map { CallRecord(client: "a", method: "m\($0)") }, requestID: "A", at: Date())
        }
        for await _ in signer.entered.stream { break }
        // Checkpoint 3 is being signed: these records make another due.
        #expect(await log.append((0..<3).map { CallRecord(client: "b", method: "m\($0)") }, requestID: "B", at: Date()))
        signer.release.continuation.yield()
        #expect(await first.value)
        let summary = try LedgerVerifier.verify(log: try Self.contents(path), key: Self.key)
        #expect(summary.records == 6)
        #expect(summary.records - summary.coveredRecords < 3, "at most checkpointEvery − 1 records uncovered")
    }

    @Test("a file whose checkpoint does not match its records is refused at open")
    func checkpointMismatchAtOpen() async throws {
        let clock = DateClock()
        // r0 … r5 and checkpoint 6; the last record edited (no record after it has its hash).
        let path = try Self.temporaryPath()
        do {
            let log = try AuditLog(path: path, ledger: Self.settings(clock))
            #expect(await Self.appendRequests(log, 0..<6))
        }
        var lines = try Self.lines(path)
        lines[Self.line(ofRecord: 5)] = Self.replacing(
            #""method":"m5""#, with: #""method":"m9""#, in: lines[Self.line(ofRecord: 5)])
        try Self.store(lines, to: path)
        #expect(Self.place(Self.failure(try Self.contents(path))) == .checkpoint(1))
        #expect(Self.openFailure(path, Self.settings(clock)) != nil)
        // A fork signed by the right key, appended.
        var other = LedgerChain()
        other.append(other.sealed((0..<3).map { JSONObject(["forged": .number(String($0))]) }))
        let settings = Self.settings(clock)
        let fork = try await settings.sign(try settings.checkpoint(of: other))
        let forked = try await Self.eightRecords(clock)
        try Self.store(try Self.lines(forked) + [LedgerLogFile.checkpointLine(fork.note)], to: forked)
        #expect(Self.place(Self.failure(try Self.contents(forked))) == .checkpoint(2))
        #expect(Self.openFailure(forked, Self.settings(clock)) != nil)
    }
}
