import EthereumPrimitives
import SignerKit
import Testing

/// One ``UsageCounterStore`` contract (quotas, limits over time), each test run against memory, SQLite and
/// PostgreSQL.
@Suite("Usage counter store contract (memory, SQLite, PostgreSQL)")
struct UsageCounterContractTests {
    enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, sqlite, postgres
        var testDescription: String { rawValue }

        func stores() async throws -> @Sendable () async throws -> any UsageCounterStore {
            switch self {
            case .memory:
                let shared = MemoryUsageCounterStore()
                return { shared }
            case .sqlite: return try await StoreBackend.sqlite.usageStores()
            case .postgres: return try await StoreBackend.postgres.usageStores()
            }
        }
    }

    static func charge(_ subject: String = "0xplayer", window: Int64 = 86_400, amount: UInt64 = 21_000)
        -> UsageCharge
    {
        UsageCharge(
            counter: "ronin-sponsor:eip155:2020:0xpayer", subject: subject, windowStart: window, amount: UInt256(amount)
        )
    }

    @Test(
        "admitted up to the count and the amount, refused beyond, per subject and window; refunds give it back",
        arguments: Backend.allCases)
    func limits(backend: Backend) async throws {
        let open = try await backend.stores()
        let store = try await open()
        let limits = UsageLimits(maximumCount: 3, maximumAmount: UInt256(50_000))
        #expect(
            try await store.admit(Self.charge(), within: limits)
                == .admitted(UsageTotals(count: 1, amount: UInt256(21_000))))
        #expect(
            try await store.admit(Self.charge(), within: limits)
                == .admitted(UsageTotals(count: 2, amount: UInt256(42_000))))
        // The amount limit bites first: 63,000 > 50,000.
        #expect(
            try await store.admit(Self.charge(), within: limits)
                == .exceeded(UsageTotals(count: 2, amount: UInt256(42_000))))
        #expect(
            try await store.admit(Self.charge(amount: 8_000), within: limits)
                == .admitted(UsageTotals(count: 3, amount: UInt256(50_000))))
        #expect(
            try await store.admit(Self.charge(amount: 0), within: limits)
                == .exceeded(UsageTotals(count: 3, amount: UInt256(50_000))))
        // Other subjects and other windows have their own rows.
        #expect(
            try await store.admit(Self.charge("0xother"), within: limits)
                == .admitted(UsageTotals(count: 1, amount: UInt256(21_000))))
        #expect(
            try await store.admit(Self.charge(window: 172_800), within: limits)
                == .admitted(UsageTotals(count: 1, amount: UInt256(21_000))))
        // A refund gives the unit back, never below zero; another handle sees the same row.
        try await store.refund(Self.charge(amount: 8_000))
        let second = try await open()
        #expect(
            try await second.totals(counter: Self.charge().counter, subject: "0xplayer", windowStart: 86_400)
                == UsageTotals(count: 2, amount: UInt256(42_000)))
        for _ in 0..<4 { try await second.refund(Self.charge()) }
        #expect(
            try await store.totals(counter: Self.charge().counter, subject: "0xplayer", windowStart: 86_400) == .zero)
        // Amounts beyond 64 bits (gas × fee cap in wei) are kept whole.
        let large = UsageCharge(counter: "c", subject: "s", windowStart: 0, amount: UInt256.powerOfTwo(100))
        let none = UsageLimits(maximumCount: nil, maximumAmount: nil)
        _ = try await store.admit(large, within: none)
        #expect(
            try await second.admit(large, within: none)
                == .admitted(UsageTotals(count: 2, amount: UInt256.powerOfTwo(101))))
    }

    @Test(
        "handles racing for the last units (as separate processes would) admit exactly the limit",
        arguments: Backend.allCases)
    func race(backend: Backend) async throws {
        let open = try await backend.stores()
        let handles = [try await open(), try await open()]
        for round in 0..<5 {
            let limits = UsageLimits(maximumCount: 3, maximumAmount: nil)
            let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for attempt in 0..<8 {
                    let store = handles[attempt % 2]
                    group.addTask {
                        if case .admitted = try await store.admit(Self.charge("0xrace\(round)"), within: limits) {
                            return true
                        }
                        return false
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(admitted == 3, "round \(round)")
        }
    }
}
