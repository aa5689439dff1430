import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitService
import Synchronization
import Testing

/// The audit log file: concurrent requests share fsyncs but every line is written exactly once, whole, and
/// a log that could not be written refuses every later request.
@Suite("Audit log file: group commit, whole lines, fail closed")
struct AuditLogTests {
    @Test("400 concurrent appends from 8 tasks: each returns true and its lines are in the file once, whole")
    func concurrentAppends() async throws {
        let path = try StoreBackend.temporaryFile() + ".jsonl"
        let log = try AuditLog(path: path)
        let results = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var all = true
                    for request in 0..<50 {
                        let records = (0..<(request % 3 + 1)).map { CallRecord(client: "c\(task)", method: "m\($0)") }
                        all = await log.append(records, requestID: "r\(task)-\(request)", at: Date()) && all
                    }
                    return all
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let parsed = try lines.map { try JSONValue(parsing: String($0)) }
        let keys = parsed.map { "\($0["requestId"]?.stringValue ?? "?")#\($0["call"]?.serialized ?? "?")" }
        #expect(Set(keys).count == keys.count, "no line twice")
        let callsPerTask = (0..<50).reduce(0) { $0 + $1 % 3 + 1 }
        #expect(keys.count == 8 * callsPerTask, "every line once")
        // A request's lines stay together, in call order.
        for (index, line) in parsed.enumerated() where line["call"] != .number("0") {
            #expect(parsed[index - 1]["requestId"] == line["requestId"])
        }
    }

    @Test("a write that fails makes this and every later append return false")
    func failsClosed() async throws {
        // /dev/full accepts the open and fails every write with ENOSPC.
        let log = try AuditLog(path: "/dev/full")
        #expect(await log.append([CallRecord(client: "a", method: "m")], requestID: "r1", at: Date()) == false)
        #expect(await log.append([CallRecord(client: "a", method: "m")], requestID: "r2", at: Date()) == false)
    }

    @Test("a write cut short (a full disk) is cut back off: the file holds whole lines only")
    func tornWriteIsTruncated() async throws {
        let path = try StoreBackend.temporaryFile() + ".jsonl"
        let failing = Mutex(false)
        // Writes the first half of the text for real, then fails as ENOSPC does, once `failing` is set.
        let log = try AuditLog(path: path) { text, descriptor in
            let bytes = Array(text.utf8)
            guard failing.withLock({ $0 }) else {
                return bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) == $0.count }
            }
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count / 2) }
            return false
        }
        #expect(await log.append([CallRecord(client: "a", method: "m")], requestID: "r1", at: Date()))
        let whole = try String(contentsOfFile: path, encoding: .utf8)
        failing.withLock { $0 = true }
        #expect(await log.append([CallRecord(client: "a", method: "m")], requestID: "r2", at: Date()) == false)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == whole, "the half line was cut back off")
    }

    @Test("a torn last line (a crash mid-write): the next record starts on a line of its own, after a marker")
    func tornLineAtOpen() async throws {
        let path = try StoreBackend.temporaryFile() + ".jsonl"
        try #"{"time":"2026-12-06T00:00:00.000Z","requestId":"r0","ca"#.write(
            toFile: path, atomically: false, encoding: .utf8)
        let log = try AuditLog(path: path)
        #expect(await log.append([CallRecord(client: "a", method: "m")], requestID: "r1", at: Date()))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines[3].isEmpty, "torn line, marker, record, end: \(lines)")
        #expect(try JSONValue(parsing: String(lines[1]))["event"] == .string("torn-line"))
        #expect(try JSONValue(parsing: String(lines[2]))["requestId"] == .string("r1"))
        let again = try AuditLog(path: path)
        #expect(await again.append([CallRecord(client: "a", method: "m")], requestID: "r2", at: Date()))
        let after = try String(contentsOfFile: path, encoding: .utf8)
        #expect(after.components(separatedBy: "torn-line").count == 2, "a whole file gets no marker")
    }
}
