import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// A database ledger as a test reaches it from outside the trail: SQL on its tables (what an operator with
/// database access could run), and the texts ``LedgerVerifier`` reads.
protocol LedgerStoreUnderTest: Sendable {
    /// The records table (`seq`, `request_id`, `entry`).
    var recordsTable: String { get }
    /// The checkpoints table (`size`, `note`).
    var checkpointsTable: String { get }
    /// Runs SQL statements on a connection of their own.
    func execute(_ sql: String) async throws
    /// What `signerkit audit verify --store` reads: records by `seq`, checkpoints by size.
    func contents() async throws -> (records: [String], checkpoints: [String])
}

/// What the ledger tests of both stores share: the checkpoint key, a manual clock, and six requests of 1, 2, 1,
/// 2, 1, 2 records, so that with a checkpoint every 3 records the ledger holds records 0 ... 8 and checkpoints of
/// 3, 6 and 9 records.
enum LedgerFixture {
    /// The time every record and checkpoint carries (2027-01-15T08:00:00.250Z).
    static let time = Date(timeIntervalSince1970: 1_800_000_000.25)
    /// The log's origin.
    static let origin = "stores.test/audit"
    /// The checkpoint key's address.
    static var key: Address { TestKeys.software.address }
    /// The request ids `fill` appends, with their record counts.
    static let requests: [(id: String, records: Int)] = (0..<6).map { ("req-\($0)", $0 % 2 + 1) }

    /// Settings signing with the software test key every `every` records, at ``time``.
    static func settings(every: Int = 3) -> AuditLedgerSettings {
        AuditLedgerSettings(signer: TestKeys.software, origin: origin, checkpointEvery: every, now: { time })
    }

    /// `count` records of one request.
    static func records(_ count: Int, client: String) -> [CallRecord] {
        (0..<count).map { call in
            var record = CallRecord(client: client, method: "personal_sign")
            record.chains = [ChainID(eip155: 8453)]
            record.resultHash = Keccak256.hash(Array("\(client) \(call)".utf8))
            return record
        }
    }

    /// Appends the six requests of ``requests``; whether every append succeeded.
    static func fill(_ trail: any AuditTrail) async -> Bool {
        for (id, count) in requests {
            guard await trail.append(records(count, client: "client-\(id)"), requestID: id, at: time) else {
                return false
            }
        }
        return true
    }

    /// The sizes of checkpoint notes.
    static func sizes(_ notes: [String]) throws -> [Int] {
        try notes.map { try Checkpoint(parsing: try SignedNote(parsing: $0).body).size }
    }

    /// Verifies `contents` against the checkpoint key.
    @discardableResult
    static func verify(_ contents: (records: [String], checkpoints: [String]), outside: String? = nil)
        throws(LedgerVerificationError) -> LedgerVerifier.Summary
    {
        try LedgerVerifier.verify(
            records: contents.records, checkpoints: contents.checkpoints, key: key, outsideCheckpoint: outside)
    }

    /// `text` as an SQL string literal.
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}

// MARK: - what every database ledger must do

extension LedgerFixture {
    /// Appends make records 0 ... n-1 in order with a checkpoint every 3, which verify; a trail opened later on
    /// the same store continues the chain.
    static func checkAppends(
        _ trail: any AuditLedger, store: some LedgerStoreUnderTest, reopen: () async throws -> any AuditLedger
    ) async throws {
        #expect(await fill(trail))
        let contents = try await store.contents()
        let entries = try contents.records.map { try LedgerEntry(parsing: $0) }
        #expect(entries.map(\.seq) == Array(0..<9))
        #expect(
            entries.map { $0.object["requestId"]?.stringValue ?? "" }
                == requests.flatMap { Array(repeating: $0.id, count: $0.records) })
        #expect(entries.map { $0.object["call"] ?? .null } == [0, 0, 1, 0, 0, 1, 0, 0, 1].map { .number(String($0)) })
        #expect(entries.allSatisfy { $0.object["time"] == .string("2027-01-15T08:00:00.250Z") })
        #expect(entries.allSatisfy { $0.object["method"] == .string("personal_sign") })
        #expect(try sizes(contents.checkpoints) == [3, 6, 9])
        let summary = try verify(contents)
        #expect((summary.records, summary.checkpoints, summary.coveredRecords) == (9, 3, 9))

        let later = try await reopen()
        #expect(await later.append(records(3, client: "later"), requestID: "req-later", at: time))
        let grown = try await store.contents()
        #expect(try grown.records.map { try LedgerEntry(parsing: $0).seq } == Array(0..<12))
        #expect(try sizes(grown.checkpoints) == [3, 6, 9, 12])
        #expect(try verify(grown).coveredRecords == 12)
    }

    /// Receipts by request id and by leaf verify against their checkpoint with the checkpoint key (and not with
    /// another); unknown leaves, sizes and requests are refused.
    static func checkReceipts(_ trail: any AuditLedger, store: some LedgerStoreUnderTest) async throws {
        #expect(await fill(trail))
        let stored = try await store.contents().checkpoints
        let receipts = try await trail.receipts(requestID: "req-3")
        #expect(receipts.map(\.index) == [4, 5])
        for receipt in receipts {
            #expect(receipt.treeSize == 9)
            #expect(try receipt.verify(against: receipt.checkpoint, key: key).size == 9)
            #expect(stored.contains(receipt.checkpoint))
            #expect(try LedgerEntry(parsing: receipt.entry).object["requestId"] == .string("req-3"))
        }
        #expect(throws: LedgerReceiptError.self) {
            try receipts[0].verify(against: receipts[0].checkpoint, key: TestKeys.other.address)
        }
        let early = try await trail.receipt(leaf: 1, treeSize: 3)
        #expect(early.treeSize == 3)
        #expect(try early.verify(against: early.checkpoint, key: key).size == 3)
        #expect(try await trail.receipt(leaf: 8, treeSize: nil).treeSize == 9)
        await #expect(throws: AuditLedgerError.unknownCheckpoint(4)) { try await trail.receipt(leaf: 1, treeSize: 4) }
        await #expect(throws: AuditLedgerError.unknownCheckpoint(3)) { try await trail.receipt(leaf: 3, treeSize: 3) }
        await #expect(throws: AuditLedgerError.unknownLeaf(9, size: 9)) {
            try await trail.receipt(leaf: 9, treeSize: nil)
        }
        await #expect(throws: AuditLedgerError.unknownRequest("req-none")) {
            try await trail.receipts(requestID: "req-none")
        }
        #expect(try await store.contents().checkpoints == stored, "no checkpoint was signed for these receipts")
    }

    /// A checkpoint row changed under a running trail (its root) is not given out in a receipt: the trail
    /// checks each receipt as an auditor would before answering, and names the record.
    static func checkReceiptOfChangedCheckpoint(_ trail: any AuditLedger, store: some LedgerStoreUnderTest)
        async throws
    {
        #expect(await fill(trail))
        let before = try await trail.receipt(leaf: 1, treeSize: 3)
        let lines = before.checkpoint.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The root line's first base64 digit, changed: the note no longer verifies under the key.
        let root = lines[2]
        let changed = (root.first == "A" ? "B" : "A") + root.dropFirst()
        let note = before.checkpoint.replacingOccurrences(of: root, with: changed)
        try await store.execute(
            "UPDATE \(store.checkpointsTable) SET note = \(literal(note)) WHERE size = 3")
        await #expect {
            try await trail.receipt(leaf: 1, treeSize: 3)
        } throws: { error in
            guard case .store(let problem) = error as? AuditLedgerError else { return false }
            return problem.contains("record 1") && problem.contains("signerkit audit verify")
        }
        // The checkpoints it did not touch still give receipts.
        let later = try await trail.receipt(leaf: 4, treeSize: 6)
        #expect(try later.verify(against: later.checkpoint, key: key).size == 6)
    }

    /// SQL that deletes or edits the newest record (9 records: seq 8) of the records table `TABLE`.
    static let tailChanges = [
        "DELETE FROM TABLE WHERE seq = 8",
        "UPDATE TABLE SET entry = replace(entry, 'client-', 'client_') WHERE seq = 8",
    ]

    /// The newest record deleted, or changed, under a running trail: its next append fails (the service then
    /// answers that the audit trail is unavailable and signs nothing) and stores nothing after the gap.
    static func checkAppendAfterChangedTail(
        _ trail: any AuditTrail, store: some LedgerStoreUnderTest, change: String
    ) async throws {
        #expect(await fill(trail))
        try await store.execute(change)
        let before = try await store.contents().records
        #expect(await trail.append(records(1, client: "late"), requestID: "req-late", at: time) == false)
        #expect(try await store.contents().records == before)
    }

    /// A receipt for a record no checkpoint covers yet signs and stores a checkpoint of the current size.
    static func checkReceiptSignsCheckpoint(_ trail: any AuditLedger, store: some LedgerStoreUnderTest) async throws {
        #expect(await fill(trail))
        #expect(await trail.append(records(1, client: "late"), requestID: "req-late", at: time))
        #expect(try sizes(try await store.contents().checkpoints) == [3, 6, 9])
        let receipts = try await trail.receipts(requestID: "req-late")
        let receipt = try #require(receipts.first)
        #expect((receipts.count, receipt.index, receipt.treeSize) == (1, 9, 10))
        #expect(try receipt.verify(against: receipt.checkpoint, key: key).size == 10)
        let contents = try await store.contents()
        #expect(try sizes(contents.checkpoints) == [3, 6, 9, 10])
        #expect(contents.checkpoints.last == receipt.checkpoint)
        // The newest checkpoint covering a record is the largest by number, not by text ("9" > "10").
        #expect(try await trail.receipt(leaf: 0, treeSize: nil).treeSize == 10)
        let summary = try verify(contents)
        #expect((summary.records, summary.checkpoints, summary.coveredRecords) == (10, 4, 10))
    }

    /// Two trails on one store appending 20 requests each at once make one chain that verifies, each request's
    /// records consecutive; a receipt from one trail verifies for a record the other wrote.
    static func checkTwoTrails(_ trails: [any AuditLedger], store: some LedgerStoreUnderTest) async throws {
        let appended = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                let trail = trails[index % 2]
                group.addTask {
                    await trail.append(
                        records(index % 3 + 1, client: "instance-\(index % 2)"), requestID: "req-\(index)", at: time)
                }
            }
            return await group.reduce(into: 0) { count, stored in count += stored ? 1 : 0 }
        }
        #expect(appended == 40)
        let contents = try await store.contents()
        let total = (0..<40).reduce(0) { $0 + $1 % 3 + 1 }
        #expect(try verify(contents).records == total)
        var seqs: [String: [Int]] = [:]
        for text in contents.records {
            let entry = try LedgerEntry(parsing: text)
            seqs[entry.object["requestId"]?.stringValue ?? "", default: []].append(entry.seq)
        }
        #expect(seqs.count == 40)
        for (id, leaves) in seqs {
            #expect(leaves == Array((leaves.first ?? 0)..<((leaves.first ?? 0) + leaves.count)), "\(id)")
        }
        #expect(!contents.checkpoints.isEmpty, "checkpoints were signed")
        // Requests 1 and 39 went through trail 1; trail 0 answers their receipts (signing a checkpoint of every
        // record for request 39's, when none covers it yet).
        for id in ["req-1", "req-39"] {
            let receipts = try await trails[0].receipts(requestID: id)
            #expect(receipts.map(\.index) == seqs[id])
            for receipt in receipts {
                #expect(try LedgerEntry(parsing: receipt.entry).object["client"] == .string("instance-1"))
                try receipt.verify(against: receipt.checkpoint, key: key)
            }
        }
        #expect(try verify(try await store.contents()).coveredRecords >= (seqs["req-39"]?.last ?? total) + 1)
    }
}

// MARK: - tampering

/// One way of changing a database ledger's rows through SQL after the fact, and where ``LedgerVerifier`` must
/// find the first problem (the fixture: records 0 ... 8, checkpoints of 3, 6 and 9).
enum LedgerTamper: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// One character of record 4 changed: record 5's `prev` no longer is its hash.
    case editRecord
    /// One character of record 5, the last the checkpoint of 6 covers: that checkpoint's root fails.
    case editCoveredRecord
    /// Record 4's row deleted: the row read as record 4 holds seq 5.
    case deleteRecord
    /// Records 2 and 7 swapped: the row read as record 2 holds seq 7.
    case swapRecords
    /// A well-formed record (right seq and prev) inserted as record 4, the rows after it renumbered: the row
    /// read as record 5 holds seq 4.
    case insertRecord
    /// Records 7 and 8 and the checkpoint of 9 deleted, a checkpoint of 7 signed by another key put in its place.
    case truncateAndResign
    /// Records 7 and 8 and the checkpoint of 9 deleted; the auditor kept the checkpoint of 9.
    case truncateAgainstKeptCheckpoint
    /// A second checkpoint of 6 records with another root, signed by the right key, stored beside the others.
    case fork
    /// The checkpoint of 6 replaced by one with another root signed by the right key; the auditor kept the
    /// original.
    case forkReplacingKept

    var testDescription: String { rawValue }

    /// Where verification must fail.
    var expected: LedgerProblem {
        switch self {
        case .editRecord: .record(5)
        case .editCoveredRecord: .checkpoint(1)
        case .deleteRecord: .record(4)
        case .swapRecords: .record(2)
        case .insertRecord: .record(5)
        case .truncateAndResign: .checkpoint(2)
        case .truncateAgainstKeptCheckpoint: .checkpoint(2)
        case .fork: .checkpoint(3)
        case .forkReplacingKept: .checkpoint(1)
        }
    }

    /// Fills `trail`, checks that the ledger verifies, tampers with `store`'s rows, and checks that verification
    /// names ``expected``.
    func check(_ trail: any AuditTrail, store: some LedgerStoreUnderTest) async throws {
        #expect(await LedgerFixture.fill(trail))
        let before = try await store.contents()
        try #require(before.records.count == 9 && before.checkpoints.count == 3)
        try LedgerFixture.verify(before)
        let outside = try await apply(to: store, before: before)
        let after = try await store.contents()
        let error = #expect(throws: LedgerVerificationError.self) { try LedgerFixture.verify(after, outside: outside) }
        #expect(error?.located == expected, "\(String(describing: error))")
    }

    /// Changes the rows; the checkpoint the auditor kept, for the cases that have one.
    private func apply(to store: some LedgerStoreUnderTest, before: (records: [String], checkpoints: [String]))
        async throws -> String?
    {
        let (records, checkpoints) = (store.recordsTable, store.checkpointsTable)
        switch self {
        case .editRecord, .editCoveredRecord:
            let seq = self == .editRecord ? 4 : 5
            let edited = before.records[seq].replacingOccurrences(of: "personal_sign", with: "personal_sigm")
            try #require(edited != before.records[seq] && edited.utf8.count == before.records[seq].utf8.count)
            try await store.execute("UPDATE \(records) SET entry = \(LedgerFixture.literal(edited)) WHERE seq = \(seq)")
        case .deleteRecord:
            try await store.execute("DELETE FROM \(records) WHERE seq = 4")
        case .swapRecords:
            try await store.execute(
                """
                UPDATE \(records) SET entry = \(LedgerFixture.literal(before.records[7])) WHERE seq = 2;
                UPDATE \(records) SET entry = \(LedgerFixture.literal(before.records[2])) WHERE seq = 7;
                """)
        case .insertRecord:
            let previous = try LedgerEntry(parsing: before.records[3])
            let forged = LedgerEntry(
                seq: 4, prev: previous.leafHash,
                record: JSONObject(["requestId": .string("req-forged"), "client": .string("mallory")]))
            try await store.execute(
                """
                UPDATE \(records) SET seq = seq + 1000000 WHERE seq >= 4;
                UPDATE \(records) SET seq = seq - 999999 WHERE seq >= 1000000;
                INSERT INTO \(records) (seq, request_id, entry) VALUES (4, 'req-forged', \(LedgerFixture.literal(forged.text)));
                """)
        case .truncateAndResign:
            var chain = LedgerChain()
            for text in before.records.prefix(7) { try chain.adopt(text) }
            let checkpoint = try chain.checkpoint(origin: LedgerFixture.origin, time: 1_800_000_000)
            let note = try await SignedNote.sign(checkpoint, with: TestKeys.other, keyName: LedgerFixture.origin)
            try await store.execute(
                """
                DELETE FROM \(records) WHERE seq >= 7;
                DELETE FROM \(checkpoints) WHERE size = 9;
                INSERT INTO \(checkpoints) (size, note) VALUES (7, \(LedgerFixture.literal(note.text)));
                """)
        case .truncateAgainstKeptCheckpoint:
            try await store.execute(
                "DELETE FROM \(records) WHERE seq >= 7; DELETE FROM \(checkpoints) WHERE size = 9;")
            return before.checkpoints[2]
        case .fork, .forkReplacingKept:
            var other = MerkleTree()
            for index in 0..<6 { _ = other.append(Array("another history \(index)".utf8)) }
            let checkpoint = try Checkpoint(
                origin: LedgerFixture.origin, size: 6, root: other.root, time: 1_800_000_000)
            let note = try await LedgerFixture.settings().sign(checkpoint).note
            guard self == .fork else {
                try await store.execute(
                    "UPDATE \(checkpoints) SET note = \(LedgerFixture.literal(note)) WHERE size = 6")
                return before.checkpoints[1]
            }
            // Size is the key column: the forged note goes under another value, and reads back after the others.
            try await store.execute(
                "INSERT INTO \(checkpoints) (size, note) VALUES (1000000, \(LedgerFixture.literal(note)))")
        }
        return nil
    }
}
