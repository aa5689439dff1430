import EthereumPrimitives
import Foundation
import SignerKit

#if canImport(Glibc)
    import Glibc
#endif

/// What an ``AuditLog`` that is a ledger keeps in memory: the chain (its Merkle tree), where each record's
/// line is in the file, which records each request wrote, and the checkpoints signed so far. About 100 bytes
/// per record.
struct AuditLogLedger: Sendable {
    var chain = LedgerChain()
    /// Each record's line: its offset in the file and length (no newline).
    var lines: [(offset: Int, length: Int)] = []
    /// The records of each request id.
    var requests: [String: [Int]] = [:]
    /// The signed checkpoints in the file, oldest first.
    var checkpoints: [SignedCheckpoint] = []
    /// The size of the checkpoint being signed, if one is.
    var signing: Int?
    /// When the newest checkpoint was written, or the log opened (for ``AuditLedgerSettings/checkpointInterval``).
    var lastCheckpointAt: Date

    /// Reads the ledger already in the file at `descriptor`, verifying it as `signerkit audit verify` does
    /// (every record's `seq` and `prev`, every checkpoint's signature and root): a log is only continued when
    /// what it holds verifies.
    ///
    /// - Throws: ``AuditLedgerError/store(_:)`` naming the first record or checkpoint that does not hold.
    init(reading descriptor: Int32, settings: AuditLedgerSettings) throws(AuditLedgerError) {
        lastCheckpointAt = settings.now()
        let bytes = Self.contents(of: descriptor)
        var verifier = LedgerVerifier(checkpointKey: settings.signer.address)
        var notes: [String] = []
        for located in LedgerLogFile.lines(bytes) {
            switch located.line {
            case .torn: continue
            case .record(let text):
                do { try verifier.record(text) } catch {
                    if verifier.records == 0, case .record(_, let problem) = error,
                        problem == LedgerEntryError.missing("seq").description
                    {
                        throw .store(
                            "its first line is not a ledger record: the file was written without a ledger "
                                + "(start the ledger in a new file)")
                    }
                    throw .store("\(error) (run `signerkit audit verify`)")
                }
                lines.append((located.offset, located.length))
                if let id = (try? JSONValue(parsing: text))?["requestId"]?.stringValue {
                    requests[id, default: []].append(verifier.records - 1)
                }
            case .checkpoint(let note):
                do { try verifier.checkpoint(note) } catch { throw .store("\(error) (run `signerkit audit verify`)") }
                notes.append(note)
            }
        }
        chain = verifier.verifiedChain
        checkpoints = zip(verifier.verifiedCheckpoints, notes).map { SignedCheckpoint(checkpoint: $0, note: $1) }
    }

    /// Notes `entries` written as lines from byte `offset` on, by request `requestID`.
    mutating func stored(_ entries: [LedgerEntry], at offset: Int, requestID: String?) {
        chain.append(entries)
        var position = offset
        for entry in entries {
            let length = entry.text.utf8.count
            lines.append((position, length))
            position += length + 1
            if let requestID { requests[requestID, default: []].append(entry.seq) }
        }
    }

    /// The checkpoint to sign now, if one is due and none is being signed (it is then marked as signing).
    mutating func dueCheckpoint(_ settings: AuditLedgerSettings) -> Checkpoint? {
        settings.claimCheckpoint(
            of: chain, signing: &signing, when: settings.isDue(size: chain.size, checkpointed: checkpointedSize))
    }

    /// The size of the newest checkpoint (0 before the first).
    var checkpointedSize: Int { checkpoints.last?.checkpoint.size ?? 0 }

    /// The whole file.
    private static func contents(of descriptor: Int32) -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return pread(descriptor, base + done, buffer.count - done, off_t(done))
            }
            if count <= 0 { break }
            done += count
        }
        return Array(bytes[..<done])
    }
}

extension AuditLog: AuditLedger {
    /// Signs the due `checkpoint` and writes its line, then the next one while another is due (records
    /// appended while it was signed); the sequence number of the last line written, or `nil` when none was
    /// (signing failed: the next due checkpoint covers these records).
    func writeDueCheckpoints(_ checkpoint: Checkpoint) async -> UInt64? {
        var next: Checkpoint? = checkpoint
        var sequence: UInt64?
        while let due = next {
            let written = await writeCheckpoint(due, due: true)
            sequence = written.sequence ?? sequence
            next = written.sequence == nil ? nil : written.next
        }
        return sequence
    }

    /// Signs `checkpoint` and writes its line when no larger one was written meanwhile: the line's sequence
    /// number (`nil`: not written), and, for a `due` checkpoint, the next one due now (then marked as signing).
    private func writeCheckpoint(_ checkpoint: Checkpoint, due: Bool) async -> (sequence: UInt64?, next: Checkpoint?) {
        guard let ledgerSettings else { return (nil, nil) }
        let signed = try? await ledgerSettings.sign(checkpoint)
        return state.withLock { state in
            guard var ledger = state.ledger.take() else { return (nil, nil) }
            defer { state.ledger = ledger }
            if due, ledger.signing == checkpoint.size { ledger.signing = nil }
            var sequence: UInt64?
            if let signed, signed.checkpoint.size > ledger.checkpointedSize {
                sequence =
                    Self.writeLocked(LedgerLogFile.checkpointLine(signed.note) + "\n", to: &state, with: write)?
                    .sequence
                if sequence != nil {
                    ledger.checkpoints.append(signed)
                    ledger.lastCheckpointAt = ledgerSettings.now()
                }
            }
            return (sequence, due ? ledger.dueCheckpoint(ledgerSettings) : nil)
        }
    }

    /// Signs a checkpoint when records were added since the newest and the interval has passed (see
    /// ``AuditLedger/checkpointIfStale()``), and waits until its line is on disk.
    public func checkpointIfStale() async {
        guard let ledgerSettings else { return }
        let due: Checkpoint? = state.withLock { state in
            guard var ledger = state.ledger.take() else { return nil }
            defer { state.ledger = ledger }
            let stale = ledgerSettings.isStale(
                size: ledger.chain.size, checkpointed: ledger.checkpointedSize, since: ledger.lastCheckpointAt)
            return ledgerSettings.claimCheckpoint(of: ledger.chain, signing: &ledger.signing, when: stale)
        }
        if let due, let sequence = await writeDueCheckpoints(due) { _ = await synced(sequence) }
    }

    /// The receipts of request `requestID`'s records (see ``AuditLedger/receipts(requestID:)``).
    public func receipts(requestID: String) async throws(AuditLedgerError) -> [LedgerReceipt] {
        let leaves = state.withLock { $0.ledger?.requests[requestID] } ?? []
        guard !leaves.isEmpty else { throw .unknownRequest(EchoedText.abbreviated(requestID)) }
        var receipts: [LedgerReceipt] = []
        for leaf in leaves { receipts.append(try await receipt(leaf: leaf, treeSize: nil)) }
        return receipts
    }

    /// The receipt of record `leaf` (see ``AuditLedger/receipt(leaf:treeSize:)``); signs a checkpoint of the
    /// current size first when none covers the record, and waits until its line is on disk.
    public func receipt(leaf: Int, treeSize: Int?) async throws(AuditLedgerError) -> LedgerReceipt {
        if let receipt = try existingReceipt(leaf: leaf, treeSize: treeSize) { return receipt }
        // None covers the record yet: one of the current size, signed now (beside a due one being signed, if
        // any; whichever is larger is written, and both cover the record).
        let now: Checkpoint? = state.withLock { state in
            guard let ledgerSettings, let chain = state.ledger?.chain else { return nil }
            return try? ledgerSettings.checkpoint(of: chain)
        }
        guard let now else { throw .checkpoint("no checkpoint of the current size could be made") }
        if let sequence = await writeCheckpoint(now, due: false).sequence, await !synced(sequence) {
            throw .store("the checkpoint line could not be written")
        }
        guard let receipt = try existingReceipt(leaf: leaf, treeSize: nil) else {
            throw .store("the checkpoint covering record \(leaf) could not be signed or written")
        }
        return receipt
    }

    /// The receipt of `leaf` from a checkpoint already written, or `nil` when none covers it (and no size was
    /// asked for).
    private func existingReceipt(leaf: Int, treeSize: Int?) throws(AuditLedgerError) -> LedgerReceipt? {
        let found: Result<(InclusionProof, Bytes32, String, Int32, (offset: Int, length: Int))?, AuditLedgerError> =
            state.withLock { state in
                guard let ledger = state.ledger else { return .failure(.store("the audit log is not a ledger")) }
                let candidates = ledger.checkpoints.filter { $0.checkpoint.size > leaf }
                // The newest covering the record, or the one of the size asked for (none: unknownCheckpoint).
                let chosen = treeSize == nil ? candidates.last : candidates.last { $0.checkpoint.size == treeSize }
                return ledger.chain.receiptProof(of: leaf, checkpointSize: chosen?.checkpoint.size, asked: treeSize)
                    .map { found in
                        found.map { ($0.0, $0.1, chosen?.note ?? "", state.descriptor, ledger.lines[leaf]) }
                    }
            }
        guard let (proof, leafHash, note, descriptor, line) = try found.get() else { return nil }
        var bytes = [UInt8](repeating: 0, count: line.length)
        let count = bytes.withUnsafeMutableBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return pread(descriptor, base, line.length, off_t(line.offset))
        }
        guard count == line.length, let entry = try? LedgerEntry(parsing: String(decoding: bytes, as: UTF8.self)),
            entry.leafHash == leafHash
        else { throw .store("record \(leaf) could not be read back as it was written: run `signerkit audit verify`") }
        guard let ledgerSettings else { throw .store("the audit log is not a ledger") }
        return try ledgerSettings.checkedReceipt(of: entry, proof: proof, checkpoint: note)
    }
}
