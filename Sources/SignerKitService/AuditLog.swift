import EthereumPrimitives
import Foundation
import SignerKitSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The audit trail: one JSON line per call (time, request id, client, method, chains, accounts, preview
/// kinds and warnings, outcome, error code, result hash), appended and fsynced before the answer is sent.
/// Never a secret and never a payload: results appear as their Keccak-256 only.
public final class AuditLog: AuditTrail {
    private let descriptor: Mutex<Int32>
    /// The file.
    public let path: String

    /// Opens (creating with mode 0600) `path` for appending.
    ///
    /// - Throws: ``ServiceConfigurationError`` at `auditLog` when it cannot be opened.
    public init(path: String) throws(ServiceConfigurationError) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ServiceConfigurationError(
                path: "auditLog",
                problem: "cannot open \(EchoedText.abbreviated(path)): \(String(cString: strerror(errno)))")
        }
        self.path = path
        descriptor = Mutex(fd)
    }

    deinit { descriptor.withLock { _ = close($0) } }

    /// Appends one line per record of request `requestID` and waits until they are on disk.
    ///
    /// - Returns: whether the lines were written and synced (the caller must not answer otherwise).
    public func append(_ records: [CallRecord], requestID: String, at time: Date) -> Bool {
        let stamp = Self.timestamp(time)
        var text = ""
        for (index, record) in records.enumerated() {
            var object = JSONObject([
                "time": .string(stamp), "requestId": .string(requestID), "call": .number(String(index)),
            ])
            for member in record.json.members { object[member.key] = member.value }
            text += JSONValue.object(object).serialized + "\n"
        }
        return descriptor.withLock { fd in
            guard case .success = POSIXIO.writeAll(text, to: fd) else { return false }
            return fsync(fd) == 0
        }
    }

    /// RFC 3339 UTC with milliseconds.
    package static func timestamp(_ date: Date) -> String { date.formatted(timestampStyle) }

    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
