import EthereumPrimitives
import Foundation
import SignerKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a ``PostgresAuditTrail`` that is a ledger keeps in memory: the chain of the records in
/// `signerkit_ledger` (appended by any instance) and the size of the checkpoint it is signing, if one is.
///
/// Every instance appends under one transaction-scoped advisory lock (``lock``): it first adopts the rows
/// the others committed since it last looked, then seals its own after them, so all instances make one chain.
final class PostgresLedger: Sendable {
    /// How the ledger is kept (key, origin, checkpoint interval, clock).
    let settings: AuditLedgerSettings
    private let state: Mutex<State>

    private struct State {
        var chain = LedgerChain()
        var signing: Int?
        /// When this instance last stored a checkpoint, or opened (for the settings' `checkpointInterval`).
        var lastCheckpointAt: Date
    }

    /// The records of one request sealed into the ledger, and the size of the largest checkpoint stored when
    /// they were.
    struct Sealed: Sendable {
        let entries: [LedgerEntry]
        let checkpointed: Int
    }

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS signerkit_ledger (
            seq bigint PRIMARY KEY, request_id text NOT NULL, entry text NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS signerkit_ledger_request ON signerkit_ledger (request_id)",
        "CREATE TABLE IF NOT EXISTS signerkit_ledger_checkpoints (size bigint PRIMARY KEY, note text NOT NULL)",
    ]

    /// The advisory lock key under which records and checkpoints are stored (`signledg` in ASCII).
    static let lock: Int64 = 0x7369_676e_6c65_6467

    /// A ledger kept as `settings` say, with no record read yet.
    init(settings: AuditLedgerSettings) {
        self.settings = settings
        state = Mutex(State(lastCheckpointAt: settings.now()))
    }

    /// Adopts the records stored from the chain's size on (by any instance).
    ///
    /// - Throws: a ``PostgresError`` naming the first record that does not follow on.
    func catchUp(on connection: PostgresConnection) throws(PostgresError) {
        let rows = try newRows(on: connection)
        try state.withLock { (state) throws(PostgresError) in
            try Self.adopt(rows, complete: false, into: &state.chain, endpoint: connection.endpoint)
        }
    }

    /// Under the ledger's advisory lock (held until the transaction ends): adopts what other instances
    /// committed, seals `objects` after it and inserts them. The chain takes them once committed
    /// (``stored(_:)``).
    func seal(_ objects: [JSONObject], requestID: String, on connection: PostgresConnection) throws(PostgresError)
        -> Sealed
    {
        try connection.execute("SELECT pg_advisory_xact_lock(\(Self.lock))")
        let rows = try newRows(on: connection)
        let entries = try state.withLock { (state) throws(PostgresError) -> [LedgerEntry] in
            // Read under the advisory lock: every record the chain holds was committed before.
            try Self.adopt(rows, complete: true, into: &state.chain, endpoint: connection.endpoint)
            return state.chain.sealed(objects)
        }
        for entry in entries {
            try connection.execute(
                "INSERT INTO signerkit_ledger (seq, request_id, entry) VALUES ($1::bigint, $2, $3)",
                [.text(String(entry.seq)), .text(requestID), .text(entry.text)])
        }
        let checkpointed = try connection.query(
            "SELECT coalesce(max(size), 0)::text FROM signerkit_ledger_checkpoints"
        ).first?.text(0).flatMap { Int($0) }
        return Sealed(entries: entries, checkpointed: checkpointed ?? 0)
    }

    /// Adds committed entries to the chain (those it has not adopted meanwhile); the checkpoint due now, if one
    /// is (then marked as being signed).
    func stored(_ sealed: Sealed) -> Checkpoint? {
        state.withLock { state in
            for entry in sealed.entries where entry.seq == state.chain.size { state.chain.append([entry]) }
        }
        return due(checkpointed: sealed.checkpointed)
    }

    /// The checkpoint due now that one of `checkpointed` records is stored (then marked as being signed), if any.
    func due(checkpointed: Int) -> Checkpoint? {
        claim { chain, _ in settings.isDue(size: chain.size, checkpointed: checkpointed) }
    }

    /// The checkpoint to sign by time now that the largest stored is of `checkpointed` records (then marked as
    /// being signed), if one is due (``AuditLedgerSettings/isStale(size:checkpointed:since:)``).
    func stale(checkpointed: Int) -> Checkpoint? {
        claim { chain, since in settings.isStale(size: chain.size, checkpointed: checkpointed, since: since) }
    }

    /// A checkpoint of the current size, to sign now (then marked as being signed); `nil` while another is.
    func checkpointNow() -> Checkpoint? { claim { _, _ in true } }

    /// A checkpoint of the current size when none is being signed and `isWanted` says so (then marked as
    /// being signed).
    private func claim(_ isWanted: (LedgerChain, Date) -> Bool) -> Checkpoint? {
        state.withLock { state in
            settings.claimCheckpoint(
                of: state.chain, signing: &state.signing, when: isWanted(state.chain, state.lastCheckpointAt))
        }
    }

    /// Notes that a checkpoint was stored now.
    func checkpointStored() { state.withLock { $0.lastCheckpointAt = settings.now() } }

    /// Marks the checkpoint of `size` as no longer being signed.
    func doneSigning(_ size: Int) {
        state.withLock { if $0.signing == size { $0.signing = nil } }
    }

    /// The inclusion proof of `leaf` for a receipt (``LedgerChain/receiptProof(of:checkpointSize:asked:)``).
    func proof(of leaf: Int, checkpointSize: Int?, asked: Int?) -> Result<(InclusionProof, Bytes32)?, AuditLedgerError>
    {
        state.withLock { $0.chain.receiptProof(of: leaf, checkpointSize: checkpointSize, asked: asked) }
    }

    /// The rows from the chain's size on, by `seq`.
    private func newRows(on connection: PostgresConnection) throws(PostgresError) -> [PostgresRow] {
        let from = state.withLock { $0.chain.catchUpFrom }
        // Ordered by the column, not by the text of the same name in the select list ("10" sorts before "8").
        return try connection.query(
            """
            SELECT seq::text, entry FROM signerkit_ledger WHERE seq >= $1::bigint ORDER BY signerkit_ledger.seq
            """, [.text(String(from))])
    }

    /// Adopts `rows` (seq, entry) from the chain's last record on into `chain`
    /// (``LedgerChain/adopt(stored:complete:)``).
    private static func adopt(_ rows: [PostgresRow], complete: Bool, into chain: inout LedgerChain, endpoint: String)
        throws(PostgresError)
    {
        let stored = rows.map { row in (seq: row.text(0).flatMap { Int($0) } ?? -1, text: row.text(1) ?? "") }
        do { try chain.adopt(stored: stored, complete: complete) } catch {
            throw PostgresError(endpoint: endpoint, message: "the audit ledger does not follow on: \(error)")
        }
    }
}

extension PostgresAuditTrail: AuditLedger {
    /// The receipts of request `requestID`'s records (see ``AuditLedger/receipts(requestID:)``), whichever
    /// instance stored them.
    public func receipts(requestID: String) async throws(AuditLedgerError) -> [LedgerReceipt] {
        _ = try openLedger()
        let key = Self.storable(requestID)
        let leaves = try await run { connection throws(PostgresError) -> [Int] in
            try connection.query(
                "SELECT seq::text FROM signerkit_ledger WHERE request_id = $1 ORDER BY signerkit_ledger.seq",
                [.text(key)]
            ).compactMap { $0.text(0).flatMap { Int($0) } }
        }
        guard !leaves.isEmpty else { throw .unknownRequest(EchoedText.abbreviated(requestID)) }
        var receipts: [LedgerReceipt] = []
        for leaf in leaves { receipts.append(try await receipt(leaf: leaf, treeSize: nil)) }
        return receipts
    }

    /// The receipt of record `leaf` (see ``AuditLedger/receipt(leaf:treeSize:)``); signs and stores a
    /// checkpoint of the current size first when no stored one covers the record.
    public func receipt(leaf: Int, treeSize: Int?) async throws(AuditLedgerError) -> LedgerReceipt {
        let ledger = try openLedger()
        if let receipt = try await existingReceipt(leaf: leaf, treeSize: treeSize, in: ledger) { return receipt }
        try await run { connection throws(PostgresError) in try ledger.catchUp(on: connection) }
        if let due = ledger.checkpointNow() { try await storeCheckpoint(due, in: ledger) }
        guard let receipt = try await existingReceipt(leaf: leaf, treeSize: nil, in: ledger) else {
            throw .checkpoint("no checkpoint covers record \(leaf) yet: another is being signed, ask again")
        }
        return receipt
    }

    /// Signs `checkpoint` (outside any transaction) and stores it, under the ledger's lock, when it is larger
    /// than every stored one.
    ///
    /// - Throws: ``AuditLedgerError/checkpoint(_:)`` when it could not be signed, ``AuditLedgerError/store(_:)``
    ///   when it could not be stored.
    func storeCheckpoint(_ checkpoint: Checkpoint, in ledger: PostgresLedger) async throws(AuditLedgerError) {
        defer { ledger.doneSigning(checkpoint.size) }
        let signed = try await ledger.settings.sign(checkpoint)
        try await run { connection throws(PostgresError) in
            try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresLedger.lock))")
            try connection.execute(
                """
                INSERT INTO signerkit_ledger_checkpoints (size, note) SELECT $1::bigint, $2::text
                WHERE $1::bigint > (SELECT coalesce(max(size), 0) FROM signerkit_ledger_checkpoints)
                ON CONFLICT DO NOTHING
                """, [.text(String(signed.checkpoint.size)), .text(signed.note)])
        }
        ledger.checkpointStored()
    }

    /// Signs a checkpoint when records were added (by any instance) since the newest stored one and the interval
    /// has passed since this instance last stored one (see ``AuditLedger/checkpointIfStale()``).
    public func checkpointIfStale() async {
        guard let ledger, ledger.settings.checkpointInterval != nil,
            let checkpointed = try? await run({ connection throws(PostgresError) -> Int in
                try ledger.catchUp(on: connection)
                return try connection.query("SELECT coalesce(max(size), 0)::text FROM signerkit_ledger_checkpoints")
                    .first?.text(0).flatMap { Int($0) } ?? 0
            }),
            let due = ledger.stale(checkpointed: checkpointed)
        else { return }
        try? await storeCheckpoint(due, in: ledger)
    }

    /// The receipt of `leaf` from a stored checkpoint: the one of `treeSize`, or the largest that covers the
    /// leaf; `nil` when none covers it (and no size was asked for).
    private func existingReceipt(leaf: Int, treeSize: Int?, in ledger: PostgresLedger) async throws(AuditLedgerError)
        -> LedgerReceipt?
    {
        try await run { connection throws(PostgresError) -> Result<LedgerReceipt?, AuditLedgerError> in
            // The checkpoint first: every record it covers was committed before it, so is read after it.
            let chosen = try connection.query(
                treeSize == nil
                    ? "SELECT size::text, note FROM signerkit_ledger_checkpoints WHERE size > $1::bigint "
                        + "ORDER BY signerkit_ledger_checkpoints.size DESC LIMIT 1"
                    : "SELECT size::text, note FROM signerkit_ledger_checkpoints WHERE size > $1::bigint "
                        + "AND size = $2::bigint",
                [.text(String(leaf))] + (treeSize.map { [.text(String($0))] } ?? [])
            ).first.flatMap { row in row.text(0).flatMap { Int($0) }.map { (size: $0, note: row.text(1) ?? "") } }
            try ledger.catchUp(on: connection)
            let proved = ledger.proof(of: leaf, checkpointSize: chosen?.size, asked: treeSize)
            guard case .success(let found) = proved else { return proved.map { _ in nil } }
            guard let (proof, leafHash) = found, let chosen else { return .success(nil) }
            let entry = try connection.query(
                "SELECT entry FROM signerkit_ledger WHERE seq = $1::bigint", [.text(String(leaf))]
            ).first?.text(0)
            guard let parsed = entry.flatMap({ try? LedgerEntry(parsing: $0) }), parsed.leafHash == leafHash else {
                return .failure(.store("record \(leaf) is not the one stored before: run `signerkit audit verify`"))
            }
            return Result { () throws(AuditLedgerError) in
                try ledger.settings.checkedReceipt(of: parsed, proof: proof, checkpoint: chosen.note)
            }
        }.get()
    }

    /// The ledger, or ``AuditLedgerError/store(_:)`` when the trail was opened without one.
    private func openLedger() throws(AuditLedgerError) -> PostgresLedger {
        guard let ledger else { throw .store("this audit trail was opened without a ledger") }
        return ledger
    }

    /// Runs `body` in one transaction; the server's errors become ``AuditLedgerError/store(_:)``.
    private func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws(PostgresError) -> T)
        async throws(AuditLedgerError) -> T
    {
        do { return try await database.transaction(body) } catch { throw .store("\(error)") }
    }
}

extension PostgresAuditTrail {
    /// The ledger stored in the database of `configuration`, for
    /// ``LedgerVerifier/verify(records:checkpoints:key:outsideCheckpoint:)``: the records' texts by `seq` and the
    /// checkpoints' notes by size, read in one read-only transaction (one snapshot of both tables).
    ///
    /// - Throws: ``AuditTrailError`` naming the server and its message (never the password), or saying the
    ///   database holds no ledger.
    public static func ledgerContents(configuration: PostgresConfiguration) async throws(AuditTrailError)
        -> (records: [String], checkpoints: [String])
    {
        var single = configuration
        single.poolSize = 1
        let database = PostgresDatabase(configuration: single)
        do {
            return try await database.transaction { connection throws(PostgresError) in
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let records = try connection.query("SELECT entry FROM signerkit_ledger ORDER BY seq").map {
                    $0.text(0) ?? ""
                }
                let checkpoints = try connection.query("SELECT note FROM signerkit_ledger_checkpoints ORDER BY size")
                    .map { $0.text(0) ?? "" }
                return (records, checkpoints)
            }
        } catch {
            guard error.sqlState != "42P01" else {
                throw AuditTrailError(
                    "audit ledger \(configuration.endpoint): the database holds no audit ledger (no signerkit_ledger "
                        + "and signerkit_ledger_checkpoints tables)")
            }
            throw AuditTrailError("audit ledger \(error)")
        }
    }

}
