import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitService
import Testing

/// `PolicyReplay` and `PolicyJudge` with limits over time: recorded calls are decided again in log order, each at
/// its record's time, against counts of what the candidate would have let through before them.
@Suite("Policy replay with limits over time")
struct PolicyReplayTests {
    static let chain = ChainID(eip155: 1)
    static let account = address(repeating: "a1")
    static let recipient = address(repeating: "b2")
    /// 2026-01-01T00:00:00Z, the start of an hour.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let ether: UInt256 = 1_000_000_000_000_000_000

    /// The address of 20 bytes `byte` (two hex digits).
    static func address(repeating byte: String) -> Address {
        guard let address = try? Address("0x" + String(repeating: byte, count: 20)) else {
            preconditionFailure("bad test address byte \(byte)")
        }
        return address
    }

    /// An `eth_sendTransaction` of `wei` from the account.
    static func send(_ wei: UInt256) -> WalletRpcAction {
        let transaction = JSONObject([
            "from": .string(account.lowercased), "to": .string(recipient.lowercased), "value": .string(wei.hexQuantity),
        ])
        return WalletRpcAction(
            chainId: chain, method: .sendTransaction, params: JSONValue.array([.object(transaction)]).serialized)
    }

    /// An audit log of one signed call per `(seconds after start, wei)`, as the service writes it.
    static func log(_ calls: [(seconds: Double, wei: UInt256)]) -> [UInt8] {
        var text = ""
        for (index, call) in calls.enumerated() {
            var record = CallRecord(client: "app", method: "eth_sendTransaction")
            record.actions = [send(call.wei)]
            let objects = CallRecord.auditObjects(
                [record], requestID: "request-\(index)", at: start.addingTimeInterval(call.seconds))
            text += JSONValue.object(objects[0]).serialized + "\n"
        }
        return Array(text.utf8)
    }

    static let hourlyEther = #"""
        {"spendLimits": {"windowSeconds": 3600, "limits": [
          {"chainId": "eip155:1", "token": "native", "maximum": "1000000000000000000"}]}}
        """#

    @Test("a limit over time is decided at each record's time, counting only what the candidate would let through")
    func spendLimitOverTime() async throws {
        // 0.6 ETH at 00:00, 0.6 at 00:10 (over the hour's 1 ETH), 0.3 at 00:20 (0.9 with the first: the refused
        // one was never charged), 0.6 at 01:05 (a new window).
        let tenths = Self.ether / 10
        let log = Self.log([(0, tenths * 6), (600, tenths * 6), (1200, tenths * 3), (3900, tenths * 6)])
        let report = try await PolicyReplay.replay(log: log, policyText: Self.hourlyEther)
        #expect(report.calls == 4)
        let change = try #require(report.changes.first)
        #expect(report.changes.count == 1, "\(report.changes.map(\.record))")
        #expect(change.record == 1 && change.requestID == "request-1")
        #expect(change.before == .signed && change.after == .refused)
        #expect(change.verdicts.count == 1 && change.verdicts[0].rule == "SpendLimit", "\(change.verdicts)")
        #expect(change.verdicts[0].action == 0)
        #expect(report.byRule["SpendLimit"]?.refused == 1)

        // The same calls an hour apart each: every one fits its own window.
        let spread = Self.log([(0, tenths * 6), (3600, tenths * 6), (7200, tenths * 6)])
        let calm = try await PolicyReplay.replay(log: spread, policyText: Self.hourlyEther)
        #expect(calm.calls == 3 && calm.changes.isEmpty, "\(calm.changes.map(\.record))")
    }

    @Test("a limit that holds when exceeded holds the call, and a held call is not charged")
    func holdingLimit() async throws {
        let policy = #"""
            {"spendLimits": {"windowSeconds": 3600,
              "holdWhenExceeded": {"name": "big-spend", "group": "treasury", "required": 2},
              "limits": [{"chainId": "eip155:1", "token": "native", "maximum": "1000000000000000000"}]}}
            """#
        let tenths = Self.ether / 10
        let log = Self.log([(0, tenths * 7), (60, tenths * 7), (120, tenths * 3)])
        let report = try await PolicyReplay.replay(log: log, policyText: policy)
        #expect(report.changes.map(\.record) == [1], "\(report.changes.map(\.record))")
        let verdict = try #require(report.changes.first?.verdicts.first)
        #expect(verdict.rule == "big-spend" && verdict.outcome == .hold(group: "treasury"))
        #expect(report.changes.first?.after == .held)
    }

    @Test("the judge charges only a call its rules let through, and takes back a call's charges when one is over")
    func judgeCharges() async throws {
        let store = MemoryUsageCounterStore()
        let policies = try PolicyFile.policies(
            jsonText: Self.hourlyEther, now: { Self.start }, usageStore: store)
        let judge = PolicyJudge(policies: policies)
        let tenths = Self.ether / 10
        // Two actions in one call: 0.6 then 0.6 — the second is over, and the first's charge is taken back.
        let over = await judge.verdicts([Self.send(tenths * 6), Self.send(tenths * 6)], caller: "app")
        #expect(over.map(\.action) == [1] && over.map(\.kind) == ["refuse"], "\(over)")
        #expect(await judge.verdicts([Self.send(tenths * 10)], caller: "app").isEmpty)
        #expect(await judge.verdicts([Self.send(1)], caller: "app").map(\.rule) == ["SpendLimit"])
    }

    @Test("a bad candidate policy file is a typed error naming the field")
    func badPolicyFile() async throws {
        await #expect(throws: PolicyFileError.self) {
            _ = try await PolicyReplay.replay(log: [], policyText: #"{"spendLimits": {"limits": []}}"#)
        }
    }

    @Test("audit timestamps read back to the time written; other text is not a time")
    func timestamps() throws {
        for milliseconds: Int64 in [0, 1_767_225_600_000, 1_767_225_600_709, 4_102_444_799_999] {
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = AuditTimestamp.rfc3339(date)
            let read = try #require(AuditTimestamp.date(rfc3339: text), "\(text)")
            #expect(Int64((read.timeIntervalSince1970 * 1000).rounded()) == milliseconds, "\(text)")
        }
        #expect(AuditTimestamp.date(rfc3339: "2026-01-01T00:00:00Z") == Self.start)
        #expect(AuditTimestamp.date(rfc3339: "2026-01-01T00:00:00.5Z") == Self.start.addingTimeInterval(0.5))
        for bad in [
            "", "2026-01-01", "2026-01-01T00:00:00", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00.Z",
            "2026-01-01 00:00:00Z", "2026-01-01T24:00:00Z", "x026-01-01T00:00:00Z", "2026-01-01T00:00:00.1234567890Z",
        ] {
            #expect(AuditTimestamp.date(rfc3339: bad) == nil, "\(bad)")
        }
    }
}
