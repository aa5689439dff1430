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
    private struct State {
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
    }

    private let state: Mutex<State>
    private let syncQueue = DispatchQueue(label: "signerkit.audit-log.fsync")
    /// The file.
    public let path: String

    /// Writes all of a request's lines to the descriptor (``POSIXIO/writeAll(_:to:)``; a test passes one that
    /// fails part-way, as a full disk does).
    package typealias Writer = @Sendable (String, Int32) -> Bool

    private let write: Writer

    /// Opens (creating with mode 0600) `path` for appending. A file whose last line was cut short (a crash or a
    /// full disk while it was written) gets a newline and a `{"event":"torn-line",…}` line first, so the next
    /// record starts on a line of its own and a reader sees that the line before is not a record.
    ///
    /// - Throws: ``ServiceConfigurationError`` at `auditLog` when it cannot be opened or repaired.
    public convenience init(path: String) throws(ServiceConfigurationError) {
        try self.init(
            path: path,
            writer: { text, descriptor in
                if case .success = POSIXIO.writeAll(text, to: descriptor) { return true }
                return false
            })
    }

    /// An audit log writing through `writer`.
    package init(path: String, writer: @escaping Writer) throws(ServiceConfigurationError) {
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ServiceConfigurationError(
                path: "auditLog",
                problem: "cannot open \(EchoedText.abbreviated(path)): \(String(cString: strerror(errno)))")
        }
        if Self.endsTorn(fd) {
            let marker = JSONValue.object(
                JSONObject([
                    "time": .string(Self.timestamp(Date())), "event": .string("torn-line"),
                    "problem": .string(
                        "the line before was cut short by a crash or a failed write; it is not a record"),
                ]))
            guard writer("\n" + marker.serialized + "\n", fd), fsync(fd) == 0 else {
                close(fd)
                throw ServiceConfigurationError(
                    path: "auditLog", problem: "cannot repair the torn last line of \(EchoedText.abbreviated(path))")
            }
        }
        self.path = path
        write = writer
        state = Mutex(State(descriptor: fd))
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
        let text = Self.lines(records, requestID: requestID, at: time)
        let sequence: UInt64? = state.withLock { state in
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
            return state.written
        }
        guard let sequence else { return false }
        return await withCheckedContinuation { continuation in
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
        let stamp = timestamp(time)
        var text = ""
        for (index, record) in records.enumerated() {
            var object = JSONObject([
                "time": .string(stamp), "requestId": .string(requestID), "call": .number(String(index)),
            ])
            for member in record.json.members { object[member.key] = member.value }
            text += JSONValue.object(object).serialized + "\n"
        }
        return text
    }

    /// RFC 3339 UTC to the nearest millisecond, e.g. `2026-12-05T01:26:20.709Z`: written digit by digit
    /// from `gmtime_r`, since every request's log line has one (a Foundation format style costs several
    /// microseconds each).
    package static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (whole, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        var seconds = time_t(whole)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00.000Z" }
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var position = 0
            func put(_ value: Int, digits: Int) {
                var remaining = value
                for offset in stride(from: digits - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                position += digits
            }
            func put(_ character: Unicode.Scalar) {
                buffer[position] = UInt8(ascii: character)
                position += 1
            }
            put(Int(parts.tm_year) + 1900, digits: 4)
            put("-")
            put(Int(parts.tm_mon) + 1, digits: 2)
            put("-")
            put(Int(parts.tm_mday), digits: 2)
            put("T")
            put(Int(parts.tm_hour), digits: 2)
            put(":")
            put(Int(parts.tm_min), digits: 2)
            put(":")
            put(Int(parts.tm_sec), digits: 2)
            put(".")
            put(Int(fraction), digits: 3)
            put("Z")
            return position
        }
    }
}
