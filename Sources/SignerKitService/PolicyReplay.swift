import EthereumPrimitives
import Foundation
import SignerKit
import Synchronization

/// `signerkit policy replay`: the signing calls an audit log recorded (with their actions, as a service with a
/// ledger keeps them), decided again under candidate policies, and what would have changed.
///
/// A recorded call was `signed`, `refused` (a policy refused it, JSON-RPC -32002), `held` (an approval rule held
/// it, -32010) or `failed` (any other error). Under the candidate it would be `refused` when any rule refuses an
/// action (or an action cannot be read), `held` when an approval rule holds one, and `signed` otherwise (a call
/// that failed for another reason is not re-decided). Limits over time are decided as if the candidate had been in
/// force from the log's first record (``replay(log:policyText:)``).
public enum PolicyReplay {
    /// What a call was, or would be.
    public enum Decision: String, Sendable {
        case signed, refused, held, failed
    }

    /// One recorded call whose decision would change.
    public struct Change: Sendable {
        /// The record's position among the log's records (from 0; its `seq` in a ledger).
        public let record: Int
        /// The request id, client and method of the call.
        public let requestID: String, client: String, method: String
        /// What it was, and what it would be.
        public let before: Decision, after: Decision
        /// The candidate's refusals and holds on it.
        public let verdicts: [PolicyVerdict]
    }

    /// What a replay found.
    public struct Report: Sendable {
        /// The signing calls decided again.
        public var calls = 0
        /// The calls whose decision would change, in log order.
        public var changes: [Change] = []
        /// Per rule of the candidate: the changed calls it would refuse, and hold.
        public var byRule: [String: (refused: Int, held: Int)] = [:]
    }

    /// Replays every signing call recorded in the log `bytes` under the policy file `policyText`, in log order
    /// and each at its record's `time`: the candidate's limits over time count, from zero, the calls it would
    /// have let through before (in memory; its `MaxValidity` and sponsor rules read the same time).
    ///
    /// - Throws: ``PolicyFileError`` when `policyText` is not a valid policy file.
    public static func replay(log bytes: [UInt8], policyText: String) async throws(PolicyFileError) -> Report {
        let clock = ReplayClock()
        let policies = try PolicyFile.policies(
            jsonText: policyText, now: { clock.now }, usageStore: MemoryUsageCounterStore())
        let judge = PolicyJudge(policies: policies)
        var report = Report()
        var position = 0
        for located in LedgerLogFile.lines(bytes) {
            guard case .record(let text) = located.line else { continue }
            defer { position += 1 }
            guard case .object(let record)? = try? JSONValue(parsing: text) else { continue }
            if let time = record["time"]?.stringValue.flatMap(AuditTimestamp.date(rfc3339:)) { clock.now = time }
            guard let actions = Self.actions(of: record), !actions.isEmpty,
                let before = Self.decision(of: record), before != .failed
            else { continue }
            report.calls += 1
            let client = record["client"]?.stringValue ?? ""
            let verdicts = await judge.verdicts(actions, caller: client)
            let after: Decision =
                verdicts.contains { $0.kind != "hold" } ? .refused : verdicts.isEmpty ? .signed : .held
            guard after != before else { continue }
            let change = Change(
                record: (record["seq"]).flatMap { if case .number(let n) = $0 { Int(n) } else { nil } } ?? position,
                requestID: record["requestId"]?.stringValue ?? "", client: client,
                method: record["method"]?.stringValue ?? "", before: before, after: after, verdicts: verdicts)
            report.changes.append(change)
            for verdict in verdicts {
                var counts = report.byRule[verdict.rule] ?? (0, 0)
                if verdict.kind == "hold" { counts.held += 1 } else { counts.refused += 1 }
                report.byRule[verdict.rule] = counts
            }
        }
        return report
    }

    /// The time a replay decides at: the time of the record being decided.
    private final class ReplayClock: Sendable {
        private let time = Mutex(Date(timeIntervalSince1970: 0))
        var now: Date {
            get { time.withLock { $0 } }
            set { time.withLock { $0 = newValue } }
        }
    }

    /// The record's actions (`nil` when it has none or one cannot be read).
    static func actions(of record: JSONObject) -> [WalletRpcAction]? {
        guard let items = record["actions"]?.arrayValue else { return nil }
        var actions: [WalletRpcAction] = []
        for item in items {
            guard let action = try? WalletRpcAction(json: item) else { return nil }
            actions.append(action)
        }
        return actions
    }

    /// What the recorded call was; `nil` for records that are not a call's answer (an intent, a replayed
    /// answer).
    static func decision(of record: JSONObject) -> Decision? {
        switch record["outcome"]?.stringValue {
        case "ok": return .signed
        case "error":
            guard case .number(let code)? = record["code"] else { return .failed }
            switch Int(code) {
            case JSONRPCError.policyRefusedCode: return .refused
            case SignerService.heldCode: return .held
            default: return .failed
            }
        default: return nil
        }
    }
}
