import Dispatch
import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The audit trail: one JSON line per call (time, request id, client, method, chains, accounts, preview
/// kinds and warnings, outcome, error code, result hash), appended and fsynced before the answer is sent.
/// Never a secret and never a payload: results appear as their Keccak-256 only.
///
/// Group commit: each request's lines are written at once (in one `write`, so lines never interleave), then
/// the request waits until an `fsync` that began after its write has finished. One `fsync` runs at a time, on
/// a thread of its own (never on Swift's cooperative pool), and covers every request written before it began,
/// so concurrent requests share it. After a failed `fsync` the log refuses every later append (the kernel may
/// have dropped the unsynced lines; a later `fsync` would not say so). A failed write is cut back off the file,
/// so no torn line stays behind.
public final class AuditLog: AuditTrail {
    /// What the writers and the syncing thread share.
    struct State {
        var descriptor: Int32
        /// Appends written so far (each request's lines count once).
        var written: UInt64 = 0
        /// Appends known to be on disk.
        var synced: UInt64 = 0
        /// Whether the syncing thread is at work.
        var syncing = false
        /// Set for good by a failed write or `fsync`.
        var failed = false
        /// Requests waiting for their append to be synced.
        var waiters: [(sequence: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        /// The ledger, when the log is one.
        var ledger: AuditLogLedger?
    }

    let state: Mutex<State>
    private let syncQueue = DispatchQueue(label: "signerkit.audit-log.fsync")
    /// The file.
    public let path: String

    /// Writes all of a request's lines to the descriptor (``POSIXIO/writeAll(_:to:)``; a test passes one that
    /// fails part-way, as a full disk does).
    package typealias Writer = @Sendable (String, Int32) -> Bool

    let write: Writer
    /// The ledger's settings, when the log is a ledger.
    let ledgerSettings: AuditLedgerSettings?

    /// Opens (creating with mode 0600) `path` for appending. A file whose last line was cut short (a crash or a
    /// full disk while it was written) gets a newline and a `{"event":"torn-line",…}` line first, so the next
    /// record starts on a line of its own and a reader sees that the line before is not a record.
    ///
    /// - Throws: ``ServiceConfigurationError`` at `auditLog` when it cannot be opened or repaired.
    /// With `ledger`, every record is a leaf of the log's Merkle tree (``LedgerEntry``: `seq` and `prev` come
    /// first) and a signed checkpoint line follows every `checkpointEvery` records; the records already in the
    /// file are read back into the tree, and a file that holds lines written without a ledger, or whose records
    /// do not follow on from each other, is refused.
    ///
    /// - Throws: ``ServiceConfigurationError`` at `auditLog` when it cannot be opened, repaired or read as a
    ///   ledger.
    public convenience init(path: String, ledger: AuditLedgerSettings? = nil) throws(ServiceConfigurationError) {
        try self.init(
            path: path, ledger: ledger,
            writer: { text, descriptor in
                if case .success = POSIXIO.writeAll(text, to: descriptor) { return true }
                return false
            })
    }

    /// An audit log writing through `writer`.
    package init(path: String, ledger: AuditLedgerSettings? = nil, writer: @escaping Writer)
        throws(ServiceConfigurationError)
    {
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ServiceConfigurationError(
                path: "auditLog",
                problem: "cannot open \(EchoedText.abbreviated(path)): \(String(cString: strerror(errno)))")
        }
        var ledgerState: AuditLogLedger?
        if let ledger {
            do { ledgerState = try AuditLogLedger(reading: fd, settings: ledger) } catch {
                close(fd)
                throw ServiceConfigurationError(path: "auditLog", problem: "\(EchoedText.abbreviated(path)): \(error)")
            }
        }
        if Self.endsTorn(fd) {
            let marker = JSONObject([
                "time": .string(Self.timestamp(Date())), "event": .string("torn-line"),
                "problem": .string(
                    "the line before was cut short by a crash or a failed write (if only by its newline); it is not counted as a record"
                ),
            ])
            var text = JSONValue.object(marker).serialized
            let entries = ledgerState?.chain.sealed([marker])
            if let entries { text = entries[0].text }
            let end = lseek(fd, 0, SEEK_END)
            guard writer("\n" + text + "\n", fd), fsync(fd) == 0 else {
                close(fd)
                throw ServiceConfigurationError(
                    path: "auditLog", problem: "cannot repair the torn last line of \(EchoedText.abbreviated(path))")
            }
            if let entries { ledgerState?.stored(entries, at: Int(end) + 1, requestID: nil) }
        }
        self.path = path
        write = writer
        ledgerSettings = ledger
        state = Mutex(State(descriptor: fd, ledger: ledgerState))
    }

    /// Whether the file at `descriptor` is not empty and does not end with a newline.
    private static func endsTorn(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return false }
        var last: UInt8 = 0
        return pread(descriptor, &last, 1, status.st_size - 1) == 1 && last != UInt8(ascii: "\n")
    }

    deinit { state.withLock { _ = close($0.descriptor) } }

    /// Appends one line per record of request `requestID` and waits until they are on disk.
    ///
    /// - Returns: whether the lines were written and synced (the caller must not answer otherwise).
    public func append(_ records: [CallRecord], requestID: String, at time: Date) async -> Bool {
        guard let ledgerSettings else {
            let text = Self.lines(records, requestID: requestID, at: time)
            guard let written = state.withLock({ Self.writeLocked(text, to: &$0, with: write) }) else { return false }
            return await synced(written.sequence)
        }
        let texts = Self.objects(records, requestID: requestID, at: time).map { JSONValue.object($0).serialized }
        let written: (sequence: UInt64, due: Checkpoint?)? = state.withLock { state in
            // Taken out of the state while it changes, so its tree is never copied.
            guard var ledger = state.ledger.take() else { return nil }
            defer { state.ledger = ledger }
            let entries = ledger.chain.sealed(texts: texts)
            guard let written = Self.writeLocked(entries.map { $0.text + "\n" }.joined(), to: &state, with: write)
            else { return nil }
            ledger.stored(entries, at: written.offset, requestID: requestID)
            return (written.sequence, ledger.dueCheckpoint(ledgerSettings))
        }
        guard let written else { return false }
        var sequence = written.sequence
        if let due = written.due, let checkpointed = await writeDueCheckpoints(due) { sequence = checkpointed }
        return await synced(sequence)
    }

    /// Writes `text` at the end of the file (the caller holds the lock); the append's sequence number and the
    /// offset it was written at, or `nil` when the log failed now or before.
    static func writeLocked(_ text: String, to state: inout State, with write: Writer)
        -> (sequence: UInt64, offset: Int)?
    {
        guard !state.failed else { return nil }
        let end = lseek(state.descriptor, 0, SEEK_END)
        guard write(text, state.descriptor) else {
            // Cut a part-written line back off, so the file holds whole lines only (a restart repairs what
            // this cannot: see init).
            if end >= 0 { _ = ftruncate(state.descriptor, end) }
            state.failed = true
            return nil
        }
        state.written += 1
        return (state.written, Int(end))
    }

    /// Waits until append `sequence` is on disk; whether it is.
    func synced(_ sequence: UInt64) async -> Bool {
        await withCheckedContinuation { continuation in
            let startSync: Bool = state.withLock { state in
                if state.synced >= sequence {
                    continuation.resume(returning: true)
                    return false
                }
                if state.failed {
                    continuation.resume(returning: false)
                    return false
                }
                state.waiters.append((sequence, continuation))
                let idle = !state.syncing
                state.syncing = true
                return idle
            }
            if startSync { syncQueue.async { self.syncUntilNoneWait() } }
        }
    }

    /// Syncs until no request waits: each round covers every append written before it began.
    private func syncUntilNoneWait() {
        while true {
            let (descriptor, target) = state.withLock { ($0.descriptor, $0.written) }
            let succeeded = fsync(descriptor) == 0
            let more: Bool = state.withLock { state in
                if succeeded {
                    state.synced = max(state.synced, target)
                } else {
                    state.failed = true
                }
                var waiting: [(sequence: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
                for waiter in state.waiters {
                    if !succeeded {
                        waiter.continuation.resume(returning: false)
                    } else if waiter.sequence <= state.synced {
                        waiter.continuation.resume(returning: true)
                    } else {
                        waiting.append(waiter)
                    }
                }
                state.waiters = waiting
                state.syncing = !waiting.isEmpty
                return state.syncing
            }
            if !more { return }
        }
    }

    /// The lines of one request.
    static func lines(_ records: [CallRecord], requestID: String, at time: Date) -> String {
        objects(records, requestID: requestID, at: time).map { JSONValue.object($0).serialized + "\n" }.joined()
    }

    /// The records of one request as the objects its lines hold (``CallRecord/auditObjects(_:requestID:at:)``).
    static func objects(_ records: [CallRecord], requestID: String, at time: Date) -> [JSONObject] {
        CallRecord.auditObjects(records, requestID: requestID, at: time)
    }

    /// RFC 3339 UTC to the nearest millisecond (``AuditTimestamp/rfc3339(_:)``).
    package static func timestamp(_ date: Date) -> String { AuditTimestamp.rfc3339(date) }
}
