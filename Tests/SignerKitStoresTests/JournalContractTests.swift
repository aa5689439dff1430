import EthereumPrimitives
import Foundation
import SignerKit
import Testing

/// One ``TransactionJournal`` contract, each test run against SQLite and PostgreSQL: records, resolutions,
/// the held-nonce check, and nonce reservations shared by separate handles (separate processes' view).
@Suite("Transaction journal contract (SQLite, PostgreSQL)")
struct JournalContractTests {
    let account: Address
    let other: Address
    let base = ChainID(eip155: 8453)

    init() throws {
        account = try Address("0x2d5fd9e4a3a225a78329a64d022581275b4ca416")
        other = try Address("0x8ba1f109551bd432803012645ac136ddd64dba72")
    }

    func entry(_ nonce: UInt64, identity: String = "k", account: Address? = nil) -> JournalEntry {
        let raw = Array("raw transaction \(nonce) \(identity)".utf8)
        return JournalEntry(
            identity: ActionIdentity(idempotencyKey: identity, index: 0), chain: base, account: account ?? self.account,
            nonce: UInt256(nonce), hash: Keccak256.hash(raw), rawTransaction: raw)
    }

    func reserve(_ journal: any TransactionJournal, _ floor: UInt64, lease: Duration = StoreBackend.holdingLease)
        async throws -> UInt256
    {
        try await journal.reserveNonce(chain: base, account: account, atLeast: UInt256(floor), lease: lease)
    }

    @Test(
        "records survive a new handle; resolved entries are not unresolved; the last resolution counts",
        arguments: StoreBackend.allCases)
    func roundTrip(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        let journal = try await open()
        let first = entry(4, identity: "a")
        let second = entry(300, identity: "b")
        try await journal.record(first)
        try await journal.record(second)
        let reopened = try await open()
        #expect(try await reopened.unresolvedEntry(for: first.identity) == first)
        #expect(try await reopened.highestNonce(chain: base, account: account) == 300, "numeric, not text, order")
        #expect(try await reopened.highestNonce(chain: ChainID(eip155: 10), account: account) == nil)
        #expect(try await reopened.highestNonce(chain: base, account: other) == nil)
        try await reopened.resolve([first.hash], as: .reported)
        try await reopened.resolve([second.hash], as: .rejected)
        #expect(try await journal.unresolvedEntry(for: first.identity) == nil)
        #expect(try await journal.unresolvedEntry(for: second.identity) == nil)
        #expect(try await journal.highestNonce(chain: base, account: account) == 4)
        try await journal.resolve([second.hash], as: .reported)
        #expect(try await journal.highestNonce(chain: base, account: account) == 300)
        // The newest unresolved entry of an identity wins.
        let retry = entry(5, identity: "a")
        try await journal.record(retry)
        #expect(try await reopened.unresolvedEntry(for: retry.identity) == retry)
    }

    @Test(
        "a nonce held by another unresolved entry is refused; the same entry may be recorded again",
        arguments: StoreBackend.allCases)
    func nonceInUse(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        let journal = try await open()
        let second = try await open()
        let held = entry(9, identity: "a")
        try await journal.record(held)
        try await journal.record(held)
        await #expect(throws: JournalError.nonceInUse(nonce: 9, hash: held.hash)) {
            try await second.record(entry(9, identity: "b"))
        }
        // Another account's nonce 9 is its own.
        try await second.record(entry(9, identity: "c", account: other))
        try await journal.resolve([held.hash], as: .rejected)
        try await second.record(entry(9, identity: "b"))
        #expect(try await journal.unresolvedEntry(for: entry(9, identity: "b").identity) == entry(9, identity: "b"))
    }

    @Test(
        "one unresolved entry per action: another run's transaction for it is refused until the first is rejected",
        arguments: StoreBackend.allCases)
    func oneAnswerPerAction(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        try await expectOneAnswerPerAction(try await open(), try await open())
    }

    @Test("one unresolved entry per action in a journal file, through two handles")
    func oneAnswerPerActionInAFile() async throws {
        let path = try StoreBackend.temporaryFile() + ".journal"
        try await expectOneAnswerPerAction(
            FileTransactionJournal(path: path), FileTransactionJournal(path: path))
    }

    /// The first run journals the action at nonce 7; a second run (another handle, another nonce) may not
    /// until that entry is rejected.
    private func expectOneAnswerPerAction(_ first: any TransactionJournal, _ second: any TransactionJournal)
        async throws
    {
        let journalled = entry(7, identity: "order-1")
        let rival = entry(8, identity: "order-1")
        try await first.record(journalled)
        try await second.record(journalled)
        await #expect(throws: JournalError.actionInFlight(hash: journalled.hash)) { try await second.record(rival) }
        #expect(try await first.unresolvedEntries().allSatisfy { $0 == journalled })
        // Other actions are not held up.
        try await second.record(entry(8, identity: "order-2"))
        try await first.resolve([journalled.hash], as: .rejected)
        try await second.record(entry(9, identity: "order-1"))
        #expect(try await first.unresolvedEntry(for: journalled.identity) == entry(9, identity: "order-1"))
    }

    @Test(
        "two handles reserving 50 nonces each at once, from one floor, get 100 distinct consecutive nonces",
        arguments: StoreBackend.allCases)
    func concurrentReservations(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        let handles = [try await open(), try await open()]
        let nonces = try await withThrowingTaskGroup(of: [UInt256].self) { group in
            for journal in handles {
                group.addTask {
                    var mine: [UInt256] = []
                    for _ in 0..<50 { mine.append(try await reserve(journal, 7)) }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(nonces.count == 100)
        #expect(Set(nonces).count == 100, "no nonce was handed out twice")
        #expect(nonces.sorted() == (7..<107).map { UInt256($0) })
    }

    @Test(
        "a released nonce is the next one reserved (no gap); a live reservation holds",
        arguments: StoreBackend.allCases)
    func releaseFillsTheGap(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        let journal = try await open()
        let second = try await open()
        #expect(try await reserve(journal, 20) == 20)
        #expect(try await reserve(second, 20) == 21)
        #expect(try await reserve(journal, 20) == 22)
        try await second.releaseNonce(chain: base, account: account, nonce: 21)
        #expect(try await reserve(journal, 20) == 21)
        #expect(try await reserve(second, 20) == 23)
        // Releasing what is not reserved changes nothing.
        try await journal.releaseNonce(chain: base, account: account, nonce: 500)
        #expect(try await reserve(journal, 20) == 24)
        // Another lane is independent.
        #expect(
            try await second.reserveNonce(chain: base, account: other, atLeast: 20, lease: StoreBackend.holdingLease)
                == 20)
    }

    @Test("a reservation whose lease ends frees its nonce; a longer one still holds", arguments: StoreBackend.allCases)
    func leaseLapses(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        let journal = try await open()
        // The long lease first: under load the 1 s lease may end before the next call is made.
        let long = try await reserve(journal, 40)
        #expect(long == 40)
        let short = try await reserve(journal, 40, lease: .seconds(1))
        #expect(short == 41)
        // Probe until 41 is handed out again; a probe that got another nonce gives it back.
        let lapsed = try await eventually {
            let probe = try await reserve(journal, 40)
            if probe == 41 { return true }
            try await journal.releaseNonce(chain: base, account: account, nonce: probe)
            return false
        }
        #expect(lapsed, "the 1 s reservation of nonce 41 never lapsed")
        #expect(try await reserve(journal, 40) == 42, "40's long lease still holds")
    }

    @Test("recording an entry ends the reservation of its nonce", arguments: StoreBackend.allCases)
    func recordConsumesReservation(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        let journal = try await open()
        let second = try await open()
        #expect(try await reserve(journal, 3) == 3)
        let recorded = entry(3, identity: "r")
        try await journal.record(recorded)
        #expect(try await reserve(second, 3) == 4, "the entry holds 3")
        // Once the entry is rejected nothing holds 3: the reservation went with the record.
        try await second.resolve([recorded.hash], as: .rejected)
        #expect(try await reserve(second, 3) == 3)
    }

    @Test("entries hold their nonces unless rejected; a floor above everything wins", arguments: StoreBackend.allCases)
    func entriesAndFloor(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        let journal = try await open()
        let entries = (0..<3).map { entry(UInt64($0), identity: "e\($0)") }
        for entry in entries { try await journal.record(entry) }
        try await journal.resolve([entries[0].hash], as: .reported)
        try await journal.resolve([entries[1].hash], as: .rejected)
        #expect(try await reserve(journal, 0) == 1, "reported 0 holds, rejected 1 is free")
        #expect(try await reserve(journal, 0) == 3)
        #expect(try await reserve(journal, 10) == 10)
        #expect(try await reserve(journal, 10) == 11)
        #expect(try await reserve(journal, 0) == 4)
        #expect(try await journal.highestNonce(chain: base, account: account) == 2, "reservations are not entries")
    }

    @Test("concurrent writers through two handles: every record lands", arguments: StoreBackend.allCases)
    func concurrentWriters(backend: StoreBackend) async throws {
        let open = try await backend.journals()
        let handles = [try await open(), try await open()]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (writer, journal) in handles.enumerated() {
                group.addTask {
                    for index in 0..<20 {
                        try await journal.record(entry(UInt64(writer * 100 + index), identity: "w\(writer)-\(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let journal = try await open()
        for writer in 0..<2 {
            for index in 0..<20 {
                let expected = entry(UInt64(writer * 100 + index), identity: "w\(writer)-\(index)")
                #expect(try await journal.unresolvedEntry(for: expected.identity) == expected)
            }
        }
        #expect(try await journal.highestNonce(chain: base, account: account) == 119)
    }
}
