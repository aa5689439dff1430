import EthereumPrimitives
import Foundation
import SignerKit
import Testing

/// The file journal: durable records, resolution, nonces, torn and corrupt lines, file checks.
@Suite("Transaction journal file")
struct JournalTests {
    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-journal-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("journal.jsonl").path
    }

    func entry(_ nonce: UInt64, identity: String = "k", chain: ChainID = TestChains.base) -> JournalEntry {
        let raw = Array("raw transaction \(nonce) \(identity)".utf8)
        return JournalEntry(
            identity: ActionIdentity(idempotencyKey: identity, index: 0), chain: chain,
            account: Actions.recipient, nonce: UInt256(nonce), hash: Keccak256.hash(raw), rawTransaction: raw)
    }

    @Test("Records survive a new instance; resolved entries are not unresolved; rejected nonces do not count")
    func roundTrip() async throws {
        let journal = FileTransactionJournal(path: path)
        let first = entry(4, identity: "a")
        let second = entry(5, identity: "b")
        try await journal.record(first)
        try await journal.record(second)
        let reopened = FileTransactionJournal(path: path)
        #expect(try await reopened.unresolvedEntry(for: first.identity) == first)
        #expect(try await reopened.highestNonce(chain: TestChains.base, account: Actions.recipient) == 5)
        #expect(try await reopened.highestNonce(chain: TestChains.optimism, account: Actions.recipient) == nil)
        try await reopened.resolve([first.hash], as: .reported)
        try await reopened.resolve([second.hash], as: .rejected)
        #expect(try await journal.unresolvedEntry(for: first.identity) == nil)
        #expect(try await journal.unresolvedEntry(for: second.identity) == nil)
        #expect(try await journal.highestNonce(chain: TestChains.base, account: Actions.recipient) == 4)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("A nonce held by another unresolved entry cannot be journalled again")
    func nonceInUse() async throws {
        let journal = FileTransactionJournal(path: path)
        let held = entry(9, identity: "a")
        try await journal.record(held)
        await #expect(throws: JournalError.nonceInUse(nonce: 9, hash: held.hash)) {
            try await journal.record(entry(9, identity: "b"))
        }
        try await journal.resolve([held.hash], as: .rejected)
        try await journal.record(entry(9, identity: "b"))
    }

    @Test("A torn last line (a write cut off before its fsync) is ignored and cut off; a corrupt line is refused")
    func tornAndCorruptLines() async throws {
        let journal = FileTransactionJournal(path: path)
        let kept = entry(1)
        try await journal.record(kept)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"v":1,"op":"broadcast","identity":"0x"#.utf8))
        try handle.close()
        #expect(try await journal.unresolvedEntry(for: kept.identity) == kept)
        try await journal.record(entry(2, identity: "z"))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)

        try Data("not json\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        await #expect(throws: JournalError.self) { try await journal.unresolvedEntry(for: kept.identity) }
        do { _ = try await journal.unresolvedEntry(for: kept.identity) } catch {
            guard case .corrupt(line: 1, _) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("A symbolic link or a directory is not a journal")
    func notARegularFile() async throws {
        let target = directory.appendingPathComponent("elsewhere").path
        #expect(FileManager.default.createFile(atPath: target, contents: Data()))
        let link = directory.appendingPathComponent("link.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        await #expect(throws: JournalError.self) { try await FileTransactionJournal(path: link).record(entry(1)) }
        await #expect(throws: JournalError.self) {
            try await FileTransactionJournal(path: directory.path).record(entry(1))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)).isEmpty)
    }

    @Test("Many concurrent writers through separate instances: every record lands, whole")
    func concurrentWriters() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let journal = FileTransactionJournal(path: path)
                    for item in 0..<10 {
                        try await journal.record(entry(UInt64(writer * 100 + item), identity: "\(writer)-\(item)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let journal = FileTransactionJournal(path: path)
        #expect(try await journal.highestNonce(chain: TestChains.base, account: Actions.recipient) == 709)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 80)
    }
}
