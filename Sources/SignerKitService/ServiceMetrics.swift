import Foundation
import SignerKitSupport
import Synchronization

/// Counters and latency histograms of the service, in Prometheus text format at `GET /metrics`.
public final class ServiceMetrics: Sendable {
    /// Upper bounds (seconds) of the latency histogram's buckets.
    public static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// A method's histogram before its first call: a count per bucket, then +Inf.
    private static let emptyHistogram = [Int](repeating: 0, count: buckets.count + 1)

    private struct State {
        var requests: [String: Int] = [:]  // "method\u{0}outcome"
        var latency: [String: [Int]] = [:]  // per method: counts per bucket, then +Inf
        var latencySum: [String: Double] = [:]
        var signatures: [String: Int] = [:]
        var policyRefusals = 0
        var upstreamErrors = 0
        var unauthorized = 0
        var overloaded = 0
    }

    private let state = Mutex(State())
    /// Methods counted by name; any other is counted as `other` (a client cannot grow the label set).
    let knownMethods: Set<String>

    /// Metrics that label the `knownMethods` by name.
    public init(knownMethods: Set<String>) { self.knownMethods = knownMethods }

    /// Counts the calls of one request.
    public func record(_ records: [CallRecord]) {
        // Labels and buckets are worked out before the lock: every connection's thread records here.
        let entries = records.map { record in
            let method = knownMethods.contains(record.method) ? record.method : "other"
            let seconds = record.duration.secondsValue
            return (
                method: method, key: method + "\u{0}" + (record.errorCode.map { "error_\(-$0)" } ?? "ok"),
                seconds: seconds, slot: Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count,
                record: record
            )
        }
        state.withLock { state in
            for entry in entries {
                state.requests[entry.key, default: 0] += 1
                state.latency[entry.method, default: Self.emptyHistogram][entry.slot] += 1
                state.latencySum[entry.method, default: 0] += entry.seconds
                for backend in entry.record.backends { state.signatures[backend, default: 0] += 1 }
                if entry.record.errorCode == JSONRPCError.policyRefusedCode { state.policyRefusals += 1 }
                if entry.record.errorCode == JSONRPCError.upstreamCode { state.upstreamErrors += 1 }
            }
        }
    }

    /// Counts a request refused for its token.
    public func recordUnauthorized() { state.withLock { $0.unauthorized += 1 } }

    /// Counts a request refused because `limits.maxConcurrentRequests` were already running.
    public func recordOverloaded() { state.withLock { $0.overloaded += 1 } }

    /// The Prometheus text exposition (format 0.0.4).
    public var exposition: String {
        state.withLock { state in
            var lines: [String] = []
            lines.append("# HELP signerkit_requests_total JSON-RPC calls by method and outcome.")
            lines.append("# TYPE signerkit_requests_total counter")
            for key in state.requests.keys.sorted() {
                let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
                lines.append(
                    "signerkit_requests_total{method=\"\(parts[0])\",outcome=\"\(parts[1])\"} \(state.requests[key] ?? 0)"
                )
            }
            lines.append("# HELP signerkit_request_duration_seconds Time to answer a call, by method.")
            lines.append("# TYPE signerkit_request_duration_seconds histogram")
            for method in state.latency.keys.sorted() {
                let counts = state.latency[method] ?? []
                var cumulative = 0
                for (index, bound) in Self.buckets.enumerated() {
                    cumulative += counts[index]
                    lines.append(
                        "signerkit_request_duration_seconds_bucket{method=\"\(method)\",le=\"\(bound)\"} \(cumulative)")
                }
                cumulative += counts[Self.buckets.count]
                lines.append(
                    "signerkit_request_duration_seconds_bucket{method=\"\(method)\",le=\"+Inf\"} \(cumulative)")
                lines.append(
                    "signerkit_request_duration_seconds_sum{method=\"\(method)\"} \(state.latencySum[method] ?? 0)")
                lines.append("signerkit_request_duration_seconds_count{method=\"\(method)\"} \(cumulative)")
            }
            lines.append("# HELP signerkit_signatures_total Actions signed, by backend.")
            lines.append("# TYPE signerkit_signatures_total counter")
            for backend in state.signatures.keys.sorted() {
                lines.append(
                    "signerkit_signatures_total{backend=\"\(Self.label(backend))\"} \(state.signatures[backend] ?? 0)")
            }
            lines.append("# HELP signerkit_policy_refusals_total Calls a policy refused.")
            lines.append("# TYPE signerkit_policy_refusals_total counter")
            lines.append("signerkit_policy_refusals_total \(state.policyRefusals)")
            lines.append("# HELP signerkit_upstream_errors_total Calls the upstream node failed.")
            lines.append("# TYPE signerkit_upstream_errors_total counter")
            lines.append("signerkit_upstream_errors_total \(state.upstreamErrors)")
            lines.append("# HELP signerkit_unauthorized_total Requests refused for a missing or unknown token.")
            lines.append("# TYPE signerkit_unauthorized_total counter")
            lines.append("signerkit_unauthorized_total \(state.unauthorized)")
            lines.append(
                "# HELP signerkit_overloaded_total Requests refused with 503 while limits.maxConcurrentRequests ran.")
            lines.append("# TYPE signerkit_overloaded_total counter")
            lines.append("signerkit_overloaded_total \(state.overloaded)")
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func label(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
