import Foundation
import SignerKit
import SignerKitSupport
import Synchronization

/// Counters and latency histograms of the service, in Prometheus text format at `GET /metrics`.
///
/// Every connection's thread records here, so counting takes no lock: each known method and backend has its
/// own relaxed atomic counters, fixed when the metrics are made. Only an error outcome (per method) and a
/// backend not known then go through a lock.
public final class ServiceMetrics: Sendable {
    /// Upper bounds (seconds) of the latency histogram's buckets.
    public static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Per method counted by name; any other is counted as `other` (a client cannot grow the label set).
    private let methods: [String: MethodMetrics]
    private let otherMethods: MethodMetrics
    private let signatures: [String: RelaxedCounter]
    private let otherSignatures = Mutex<[String: Int]>([:])
    private let policyRefusals = RelaxedCounter()
    private let upstreamErrors = RelaxedCounter()
    private let unauthorized = RelaxedCounter()
    private let overloaded = RelaxedCounter()

    /// Metrics that label the `knownMethods` by name and count signatures of `knownBackends` without a lock
    /// (others are counted too, under a lock).
    public init(knownMethods: Set<String>, knownBackends: Set<String> = []) {
        otherMethods = MethodMetrics()
        var methods = ["other": otherMethods]
        for method in knownMethods where method != "other" { methods[method] = MethodMetrics() }
        self.methods = methods
        var signatures: [String: RelaxedCounter] = [:]
        for backend in knownBackends { signatures[backend] = RelaxedCounter() }
        self.signatures = signatures
    }

    /// Counts the calls of one request.
    public func record(_ records: [CallRecord]) {
        for record in records {
            (methods[record.method] ?? otherMethods).record(record.duration, errorCode: record.errorCode)
            for backend in record.backends {
                if let counter = signatures[backend] {
                    counter.add()
                } else {
                    otherSignatures.withLock { $0[backend, default: 0] += 1 }
                }
            }
            if record.errorCode == JSONRPCError.policyRefusedCode { policyRefusals.add() }
            if record.errorCode == JSONRPCError.upstreamCode { upstreamErrors.add() }
        }
    }

    /// Counts a request refused for its token.
    public func recordUnauthorized() { unauthorized.add() }

    /// Counts a request refused because `limits.maxConcurrentRequests` were already running.
    public func recordOverloaded() { overloaded.add() }

    /// The Prometheus text exposition (format 0.0.4).
    public var exposition: String {
        let methods = self.methods.mapValues(\.snapshot).filter { $0.value.slots.contains { $0 > 0 } }
            .sorted { $0.key < $1.key }
        var signatures = otherSignatures.withLock { $0 }
        for (backend, counter) in self.signatures where counter.value > 0 { signatures[backend] = counter.value }
        var lines: [String] = []
        lines.append("# HELP signerkit_requests_total JSON-RPC calls by method and outcome.")
        lines.append("# TYPE signerkit_requests_total counter")
        for (method, snapshot) in methods {
            var outcomes = snapshot.failed.map { (outcome: "error_\(-$0.key)", count: $0.value) }
            if snapshot.succeeded > 0 { outcomes.append((outcome: "ok", count: snapshot.succeeded)) }
            for (outcome, count) in outcomes.sorted(by: { $0.outcome < $1.outcome }) {
                lines.append("signerkit_requests_total{method=\"\(method)\",outcome=\"\(outcome)\"} \(count)")
            }
        }
        lines.append("# HELP signerkit_request_duration_seconds Time to answer a call, by method.")
        lines.append("# TYPE signerkit_request_duration_seconds histogram")
        for (method, snapshot) in methods {
            var cumulative = 0
            for (index, bound) in Self.buckets.enumerated() {
                cumulative += snapshot.slots[index]
                lines.append(
                    "signerkit_request_duration_seconds_bucket{method=\"\(method)\",le=\"\(bound)\"} \(cumulative)")
            }
            cumulative += snapshot.slots[Self.buckets.count]
            lines.append("signerkit_request_duration_seconds_bucket{method=\"\(method)\",le=\"+Inf\"} \(cumulative)")
            lines.append("signerkit_request_duration_seconds_sum{method=\"\(method)\"} \(snapshot.seconds)")
            lines.append("signerkit_request_duration_seconds_count{method=\"\(method)\"} \(cumulative)")
        }
        lines.append("# HELP signerkit_signatures_total Actions signed, by backend.")
        lines.append("# TYPE signerkit_signatures_total counter")
        for (backend, count) in signatures.sorted(by: { $0.key < $1.key }) {
            lines.append("signerkit_signatures_total{backend=\"\(Self.label(backend))\"} \(count)")
        }
        lines.append("# HELP signerkit_policy_refusals_total Calls a policy refused.")
        lines.append("# TYPE signerkit_policy_refusals_total counter")
        lines.append("signerkit_policy_refusals_total \(policyRefusals.value)")
        lines.append("# HELP signerkit_upstream_errors_total Calls the upstream node failed.")
        lines.append("# TYPE signerkit_upstream_errors_total counter")
        lines.append("signerkit_upstream_errors_total \(upstreamErrors.value)")
        lines.append("# HELP signerkit_unauthorized_total Requests refused for a missing or unknown token.")
        lines.append("# TYPE signerkit_unauthorized_total counter")
        lines.append("signerkit_unauthorized_total \(unauthorized.value)")
        lines.append(
            "# HELP signerkit_overloaded_total Requests refused with 503 while limits.maxConcurrentRequests ran.")
        lines.append("# TYPE signerkit_overloaded_total counter")
        lines.append("signerkit_overloaded_total \(overloaded.value)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func label(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
