import Dispatch
import EthereumPrimitives
import SignerKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built-in ``TransactionJournal``: an append-only file of JSON lines, fsynced after every record,
/// locked with `flock` around each read-and-append so several processes can share it.
///
/// Each line is one record: a broadcast (`"op":"broadcast"` with identity, chain, account, nonce, hash and
/// the raw transaction), a resolution (`"op":"reported"` / `"op":"rejected"` with the hash), or an EIP-5792
/// call batch (`"op":"calls"` with id, digest, chain, account, call count, execution and delegate). A last line
/// without its newline is a record whose write was cut off (the process died before its fsync returned),
/// so it was never broadcast: it is ignored, and cut off before the next append. The file is created with
/// mode 0600; a symbolic link or anything but a regular file is refused.
public final class FileTransactionJournal: TransactionJournal {
    /// The journal file.
    public let path: String

    /// Blocking file work runs here, off Swift's cooperative pool.
    private let queue = DispatchQueue(label: "SignerKit.FileTransactionJournal")

    /// A journal in `path`; the file is created on first use, its directory must exist.
    public init(path: String) {
        self.path = path
    }

    /// Stores `entry` and fsyncs; refuses a nonce held by another unresolved entry.
    public func record(_ entry: JournalEntry) async throws(JournalError) {
        try await queue.perform { () throws(JournalError) in
            try self.withLockedFile { (file, state) throws(JournalError) in
                if let holder = state.unresolvedHolder(of: entry.nonce, chain: entry.chain, account: entry.account),
                    holder.hash != entry.hash
                {
                    throw .nonceInUse(nonce: entry.nonce, hash: holder.hash)
                }
                if let answering = state.latest(for: entry.identity, includingReported: false),
                    answering.hash != entry.hash
                {
                    throw .actionInFlight(hash: answering.hash)
                }
                try file.append(JournalRecord.broadcast(entry).line)
            }
        }
    }

    /// Appends one resolution record per hash and fsyncs.
    public func resolve(_ hashes: [Bytes32], as outcome: JournalOutcome) async throws(JournalError) {
        guard !hashes.isEmpty else { return }
        try await queue.perform { () throws(JournalError) in
            try self.withLockedFile { (file, _) throws(JournalError) in
                try file.append(hashes.map { JournalRecord.resolution($0, outcome).line }.joined())
            }
        }
    }

    /// The newest entry for `identity` that is unresolved or, when `includingReported`, reported.
    public func entry(for identity: ActionIdentity, includingReported: Bool) async throws(JournalError)
        -> JournalEntry?
    {
        try await queue.perform { () throws(JournalError) in
            try self.withLockedFile { (_, state) in state.latest(for: identity, includingReported: includingReported) }
        }
    }

    /// Every unresolved entry, in file order.
    public func unresolvedEntries() async throws(JournalError) -> [JournalEntry] {
        try await queue.perform { () throws(JournalError) in
            try self.withLockedFile { (_, state) in state.unresolved }
        }
    }

    /// The highest nonce journalled for `account` on `chain`, rejected entries aside.
    public func highestNonce(chain: ChainID, account: Address) async throws(JournalError) -> UInt256? {
        try await queue.perform { () throws(JournalError) in
            try self.withLockedFile { (_, state) in state.highestNonce(chain: chain, account: account) }
        }
    }

    /// Appends `batch` unless a batch with its id is in the file; returns the one in the file.
    public func claimCallBatch(_ batch: CallBatchRecord) async throws(JournalError) -> CallBatchRecord {
        try await queue.perform { () throws(JournalError) in
            try self.withLockedFile { (file, state) throws(JournalError) in
                if let recorded = state.callBatches[batch.id] { return recorded }
                try file.append(JournalRecord.callBatch(batch).line)
                return batch
            }
        }
    }

    /// The call batch recorded under `id`.
    public func callBatch(id: String) async throws(JournalError) -> CallBatchRecord? {
        try await queue.perform { () throws(JournalError) in
            try self.withLockedFile { (_, state) in state.callBatches[id] }
        }
    }

    /// Opens (creating) and locks the file, reads its state, runs `body`, unlocks and closes.
    private func withLockedFile<T>(_ body: (JournalFile, JournalState) throws(JournalError) -> T) throws(JournalError)
        -> T
    {
        let file = try JournalFile(path: path)
        defer { file.close() }
        let state = try JournalState(parsing: try file.readAll())
        return try body(file, state)
    }
}

/// One open, locked journal file.
private struct JournalFile {
    let path: String
    let descriptor: Int32

    init(path: String) throws(JournalError) {
        self.path = path
        var created = false
        var descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 && errno == ENOENT {
            descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_CREAT | O_EXCL, 0o600)
            created = descriptor >= 0
            if descriptor < 0 && errno == EEXIST {
                descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
            }
        }
        guard descriptor >= 0 else { throw Self.failure("cannot open", path: path) }
        self.descriptor = descriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            closeDescriptor(descriptor)
            throw .io("\(path) is not a regular file")
        }
        guard POSIXIO.retryingInterrupts({ flock(descriptor, LOCK_EX) }) == 0 else {
            let error = Self.failure("cannot lock", path: path)
            closeDescriptor(descriptor)
            throw error
        }
        if created { Self.syncDirectory(of: path) }
    }

    func close() {
        _ = flock(descriptor, LOCK_UN)
        closeDescriptor(descriptor)
    }

    /// The whole file; a torn last line (no newline) is cut off the file and left out.
    func readAll() throws(JournalError) -> [UInt8] {
        var bytes: [UInt8]
        switch POSIXIO.readToEnd(descriptor) {
        case .success(let read): bytes = read
        case .failure(let error): throw .io("cannot read \(path): \(error)")
        }
        if let last = bytes.last, last != UInt8(ascii: "\n") {
            let keep = (bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }) ?? 0
            guard ftruncate(descriptor, off_t(keep)) == 0 else {
                throw Self.failure("cannot cut a torn line", path: path)
            }
            bytes.removeSubrange(keep...)
        }
        return bytes
    }

    /// Appends `text` and fsyncs; returns once it is on stable storage.
    func append(_ text: String) throws(JournalError) {
        if case .failure(let error) = POSIXIO.writeAll(text, to: descriptor) {
            throw .io("cannot write \(path): \(error)")
        }
        guard POSIXIO.retryingInterrupts({ fsync(descriptor) }) == 0 else {
            throw Self.failure("cannot fsync", path: path)
        }
    }

    private static func failure(_ what: String, path: String) -> JournalError {
        .io("\(what) \(path): \(String(cString: strerror(errno)))")
    }

    /// Makes a new file's directory entry durable.
    private static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        closeDescriptor(descriptor)
    }
}

/// `close(2)`, named apart from ``JournalFile/close()``.
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
    #endif
}
