import Dispatch
import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An ``AuditLedger`` in the signer service's SQLite file: one row of `ledger_records` per call, holding the
/// record as the ledger stored it (``LedgerEntry``: the leaf's exact bytes), and one row of
/// `ledger_checkpoints` per signed checkpoint (the signed note's text).
///
/// Each request's records are sealed and inserted in one `BEGIN IMMEDIATE` transaction: SQLite's own write
/// lock orders them, so several processes appending to one file make one chain (each first adopts the rows the
/// others appended). A checkpoint due after the commit is signed outside any transaction (the key may be a
/// token or a cloud KMS key) and stored in a second one, only when it is larger than every stored checkpoint.
/// Calls run on a serial queue of their own, off the cooperative pool.
public final class SQLiteAuditTrail: AuditLedger {
    /// The database file.
    public let path: String
    private let database: SQLiteDatabase
    private let settings: AuditLedgerSettings
    private let queue = DispatchQueue(label: "SignerKit.SQLiteAuditTrail")
    /// The records stored so far (by any process) and the size of the checkpoint being signed, if one is.
    private let state: Mutex<State>

    private struct State {
        var chain: LedgerChain
        var signing: Int?
        /// When this trail last stored a checkpoint, or opened (for the settings' `checkpointInterval`).
        var lastCheckpointAt: Date
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS ledger_records (
            seq INTEGER PRIMARY KEY, request_id TEXT NOT NULL, entry TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS ledger_records_request ON ledger_records (request_id);
        CREATE TABLE IF NOT EXISTS ledger_checkpoints (size INTEGER PRIMARY KEY, note TEXT NOT NULL);
        """

    /// Opens (creating) the ledger's tables in the database at `path` and reads the records already stored.
    ///
    /// - Throws: ``AuditTrailError`` naming the file and SQLite's message, or the first stored record that does
    ///   not follow on from the one before it (run `signerkit audit verify`).
    public init(path: String, ledger: AuditLedgerSettings) throws(AuditTrailError) {
        self.path = path
        settings = ledger
        var chain = LedgerChain()
        do {
            database = try SQLiteDatabase(path: path)
            try database.execute(Self.schema)
            try Self.adoptNew(into: &chain, from: database)
        } catch {
            throw AuditTrailError("audit ledger \(error)")
        }
        state = Mutex(State(chain: chain, lastCheckpointAt: ledger.now()))
    }

    /// Seals one record per call of request `requestID` and stores them in one transaction; then signs and
    /// stores the checkpoint that is due, if one is (a failed checkpoint is left to the next one).
    ///
    /// - Returns: whether the records were committed (never throws: the caller must not answer otherwise).
    public func append(_ records: [CallRecord], requestID: String, at time: Date) async -> Bool {
        guard !records.isEmpty else { return true }
        let objects = CallRecord.auditObjects(records, requestID: requestID, at: time)
        let due: Checkpoint?
        do {
            due = try await queue.perform { () throws(SQLiteError) -> Checkpoint? in
                try self.store(objects, requestID: requestID)
            }
        } catch {
            return false
        }
        // Records appended while a checkpoint was signed may make the next one due at once.
        var next = due
        while let checkpoint = next, (try? await storeCheckpoint(checkpoint)) != nil {
            next = dueAfter(checkpoint.size)
        }
        return true
    }

    /// Adopts what other processes appended, seals and inserts `objects`, commits, adds them to the chain; the
    /// checkpoint due now (marked as being signed), if one is. On the queue.
    private func store(_ objects: [JSONObject], requestID: String) throws(SQLiteError) -> Checkpoint? {
        let checkpointed = try state.withLock { (state) throws(SQLiteError) -> Int in
            let (entries, checkpointed) = try database.transaction {
                () throws(SQLiteError) -> ([LedgerEntry], Int) in
                try Self.adoptNew(into: &state.chain, from: database)
                let entries = state.chain.sealed(objects)
                for entry in entries {
                    try database.query(
                        "INSERT INTO ledger_records (seq, request_id, entry) VALUES (?, ?, ?)",
                        [.real(Double(entry.seq)), .text(requestID), .text(entry.text)])
                }
                return (entries, try Self.checkpointedSize(database))
            }
            state.chain.append(entries)
            return checkpointed
        }
        return dueAfter(checkpointed)
    }

    /// The checkpoint due now that the largest stored is of `size` records (then marked as being signed), if any.
    private func dueAfter(_ size: Int) -> Checkpoint? {
        state.withLock { state in
            settings.claimCheckpoint(
                of: state.chain, signing: &state.signing,
                when: settings.isDue(size: state.chain.size, checkpointed: size))
        }
    }

    /// Signs `checkpoint` (outside any transaction) and stores it when it is larger than every stored one.
    ///
    /// - Throws: ``AuditLedgerError/checkpoint(_:)`` when it could not be signed, ``AuditLedgerError/store(_:)``
    ///   when it could not be stored.
    private func storeCheckpoint(_ checkpoint: Checkpoint) async throws(AuditLedgerError) {
        let signed: Result<SignedCheckpoint, AuditLedgerError>
        do { signed = .success(try await settings.sign(checkpoint)) } catch { signed = .failure(error) }
        try await run { () throws(SQLiteError) -> Result<Void, AuditLedgerError> in
            defer { self.state.withLock { if $0.signing == checkpoint.size { $0.signing = nil } } }
            guard case .success(let signed) = signed else { return signed.map { _ in () } }
            try self.database.transaction { () throws(SQLiteError) in
                try self.database.query(
                    """
                    INSERT INTO ledger_checkpoints (size, note) SELECT ?, ?
                    WHERE ? > (SELECT COALESCE(MAX(size), 0) FROM ledger_checkpoints)
                    """,
                    [.real(Double(signed.checkpoint.size)), .text(signed.note), .real(Double(signed.checkpoint.size))])
            }
            self.state.withLock { $0.lastCheckpointAt = self.settings.now() }
            return .success(())
        }.get()
    }

    /// Signs a checkpoint when records were added since the newest stored one and the interval has passed
    /// (see ``AuditLedger/checkpointIfStale()``).
    public func checkpointIfStale() async {
        guard settings.checkpointInterval != nil,
            let checkpointed = try? await run({ () throws(SQLiteError) -> Int in
                try self.state.withLock { (state) throws(SQLiteError) in
                    try Self.adoptNew(into: &state.chain, from: self.database)
                }
                return try Self.checkpointedSize(self.database)
            })
        else { return }
        let due = state.withLock { state in
            settings.claimCheckpoint(
                of: state.chain, signing: &state.signing,
                when: settings.isStale(
                    size: state.chain.size, checkpointed: checkpointed, since: state.lastCheckpointAt))
        }
        if let due { try? await storeCheckpoint(due) }
    }

    /// Adds to `chain` the records stored after its last (appended by other processes), once its last is seen
    /// still stored as it was (``LedgerChain/adopt(stored:complete:)``).
    ///
    /// - Throws: an ``SQLiteError`` naming the first record that does not follow on.
    private static func adoptNew(into chain: inout LedgerChain, from database: SQLiteDatabase) throws(SQLiteError) {
        var rows: [(seq: Int, text: String)] = []
        try database.query(
            "SELECT seq, entry FROM ledger_records WHERE seq >= ? ORDER BY seq", [.real(Double(chain.catchUpFrom))]
        ) { row in rows.append((Int(row.integer(0)), row.text(1) ?? "")) }
        // Read under the trail's lock, after every record the chain holds was committed: complete.
        do { try chain.adopt(stored: rows, complete: true) } catch {
            throw SQLiteError(path: database.path, message: "the audit ledger does not follow on: \(error)")
        }
    }

    /// The size of the largest stored checkpoint (0 when there is none).
    private static func checkpointedSize(_ database: SQLiteDatabase) throws(SQLiteError) -> Int {
        var size = 0
        try database.query("SELECT COALESCE(MAX(size), 0) FROM ledger_checkpoints", []) { size = Int($0.integer(0)) }
        return size
    }

    /// Runs `body` on the queue; SQLite's errors become ``AuditLedgerError/store(_:)``.
    private func run<T: Sendable>(_ body: @escaping @Sendable () throws(SQLiteError) -> T)
        async throws(AuditLedgerError) -> T
    {
        do { return try await queue.perform(body) } catch { throw .store("\(error)") }
    }
}

extension SQLiteAuditTrail {
    /// The receipts of request `requestID`'s records (see ``AuditLedger/receipts(requestID:)``), whichever
    /// process stored them.
    public func receipts(requestID: String) async throws(AuditLedgerError) -> [LedgerReceipt] {
        let leaves = try await run { () throws(SQLiteError) -> [Int] in
            var leaves: [Int] = []
            try self.database.query(
                "SELECT seq FROM ledger_records WHERE request_id = ? ORDER BY seq", [.text(requestID)]
            ) { leaves.append(Int($0.integer(0))) }
            return leaves
        }
        guard !leaves.isEmpty else { throw .unknownRequest(EchoedText.abbreviated(requestID)) }
        var receipts: [LedgerReceipt] = []
        for leaf in leaves { receipts.append(try await receipt(leaf: leaf, treeSize: nil)) }
        return receipts
    }

    /// The receipt of record `leaf` (see ``AuditLedger/receipt(leaf:treeSize:)``); signs and stores a
    /// checkpoint of the current size first when no stored one covers the record.
    public func receipt(leaf: Int, treeSize: Int?) async throws(AuditLedgerError) -> LedgerReceipt {
        if let receipt = try await existingReceipt(leaf: leaf, treeSize: treeSize) { return receipt }
        let due = try await run { () throws(SQLiteError) -> Checkpoint? in
            try self.state.withLock { (state) throws(SQLiteError) -> Checkpoint? in
                try Self.adoptNew(into: &state.chain, from: self.database)
                return self.settings.claimCheckpoint(of: state.chain, signing: &state.signing, when: true)
            }
        }
        if let due { try await storeCheckpoint(due) }
        guard let receipt = try await existingReceipt(leaf: leaf, treeSize: nil) else {
            throw .checkpoint("no checkpoint covers record \(leaf) yet: another is being signed, ask again")
        }
        return receipt
    }

    /// The receipt of `leaf` from a stored checkpoint: the one of `treeSize`, or the largest that covers the
    /// leaf; `nil` when none covers it (and no size was asked for).
    private func existingReceipt(leaf: Int, treeSize: Int?) async throws(AuditLedgerError) -> LedgerReceipt? {
        try await run { () throws(SQLiteError) -> Result<LedgerReceipt?, AuditLedgerError> in
            // The checkpoint first: every record it covers was committed before it, so is read after it.
            var chosen: (size: Int, note: String)?
            let sql =
                treeSize == nil
                ? "SELECT size, note FROM ledger_checkpoints WHERE size > ? ORDER BY size DESC LIMIT 1"
                : "SELECT size, note FROM ledger_checkpoints WHERE size > ? AND size = ?"
            try self.database.query(sql, [.real(Double(leaf))] + (treeSize.map { [.real(Double($0))] } ?? [])) {
                chosen = (Int($0.integer(0)), $0.text(1) ?? "")
            }
            let proved = try self.state.withLock {
                (state) throws(SQLiteError) -> Result<(InclusionProof, Bytes32)?, AuditLedgerError> in
                try Self.adoptNew(into: &state.chain, from: self.database)
                return state.chain.receiptProof(of: leaf, checkpointSize: chosen?.size, asked: treeSize)
            }
            guard case .success(let found) = proved else { return proved.map { _ in nil } }
            guard let (proof, leafHash) = found, let chosen else { return .success(nil) }
            var entry: String?
            try self.database.query("SELECT entry FROM ledger_records WHERE seq = ?", [.real(Double(leaf))]) {
                entry = $0.text(0)
            }
            guard let parsed = entry.flatMap({ try? LedgerEntry(parsing: $0) }), parsed.leafHash == leafHash else {
                return .failure(.store("record \(leaf) is not the one stored before: run `signerkit audit verify`"))
            }
            return Result { () throws(AuditLedgerError) in
                try self.settings.checkedReceipt(of: parsed, proof: proof, checkpoint: chosen.note)
            }
        }.get()
    }
}

extension SQLiteAuditTrail {
    /// The ledger stored in the database at `path`, for ``LedgerVerifier/verify(records:checkpoints:key:outsideCheckpoint:)``:
    /// the records' texts by `seq` and the checkpoints' notes by size, read in one transaction. No row is
    /// written, and a missing file is an error, not a new database.
    ///
    /// - Throws: ``AuditTrailError`` naming the file and what is missing or SQLite's message.
    public static func ledgerContents(path: String) throws(AuditTrailError) -> (
        records: [String], checkpoints: [String]
    ) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw AuditTrailError("audit ledger \(path): no such file")
        }
        do {
            let database = try SQLiteDatabase(path: path)
            var tables = 0
            try database.query(
                """
                SELECT COUNT(*) FROM sqlite_master
                WHERE type = 'table' AND name IN ('ledger_records', 'ledger_checkpoints')
                """, []
            ) { tables = Int($0.integer(0)) }
            guard tables == 2 else {
                throw SQLiteError(
                    path: path, message: "holds no audit ledger (no ledger_records and ledger_checkpoints tables)")
            }
            // A deferred transaction: one snapshot of both tables, no write lock.
            try database.execute("BEGIN")
            defer { try? database.execute("COMMIT") }
            var records: [String] = []
            try database.query("SELECT entry FROM ledger_records ORDER BY seq", []) { records.append($0.text(0) ?? "") }
            var checkpoints: [String] = []
            try database.query("SELECT note FROM ledger_checkpoints ORDER BY size", []) {
                checkpoints.append($0.text(0) ?? "")
            }
            return (records, checkpoints)
        } catch {
            throw AuditTrailError("audit ledger \(error)")
        }
    }

}
