import Dispatch
import Foundation
import SignerKit
import SignerKitService
import Testing

@Suite("Service metrics")
struct ServiceMetricsTests {
    static func record(_ method: String, error: Int? = nil, backend: String? = nil, ms: Double) -> CallRecord {
        var record = CallRecord(client: "app", method: method)
        record.errorCode = error
        record.backends = backend.map { [$0] } ?? []
        record.duration = .microseconds(Int64(ms * 1000))
        return record
    }

    /// The value of the exposition's line that starts with `series` (and a space).
    static func value(_ exposition: String, _ series: String) -> String? {
        exposition.split(separator: "\n").first { $0.hasPrefix(series + " ") }.map {
            String($0.dropFirst(series.count + 1))
        }
    }

    @Test("eight threads record at once: every call counted once, by method, outcome, bucket and backend")
    func concurrentRecording() {
        let metrics = ServiceMetrics(
            knownMethods: ["personal_sign", "eth_chainId"], knownBackends: ["PrehashBackend(Key)"])
        let perThread = 2000
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for index in 0..<perThread {
                switch index % 4 {
                case 0: metrics.record([Self.record("personal_sign", backend: "PrehashBackend(Key)", ms: 0.5)])
                case 1: metrics.record([Self.record("personal_sign", error: -32602, ms: 3)])
                case 2:
                    metrics.record([
                        Self.record("eth_foo", backend: "Custom \"hsm\"", ms: 20_000),
                        Self.record("eth_chainId", error: -32003, ms: 0.2),
                    ])
                default: metrics.recordUnauthorized()
                }
            }
        }
        let text = metrics.exposition
        let quarter = String(8 * perThread / 4)
        #expect(
            Self.value(text, #"signerkit_requests_total{method="personal_sign",outcome="ok"}"#) == quarter, "\(text)")
        #expect(Self.value(text, #"signerkit_requests_total{method="personal_sign",outcome="error_32602"}"#) == quarter)
        #expect(Self.value(text, #"signerkit_requests_total{method="other",outcome="ok"}"#) == quarter)
        #expect(Self.value(text, #"signerkit_requests_total{method="eth_chainId",outcome="error_32003"}"#) == quarter)
        #expect(!text.contains("eth_foo"), "an unknown method is counted as other")
        let bucket = #"signerkit_request_duration_seconds_bucket{method="personal_sign",le="#
        #expect(Self.value(text, bucket + #""0.001"}"#) == quarter, "0.5 ms")
        #expect(Self.value(text, bucket + #""0.0025"}"#) == quarter)
        #expect(Self.value(text, bucket + #""0.005"}"#) == String(8 * perThread / 2), "3 ms")
        #expect(Self.value(text, bucket + #""+Inf"}"#) == String(8 * perThread / 2))
        #expect(Self.value(text, #"signerkit_request_duration_seconds_count{method="personal_sign"}"#) == "8000")
        let sum = Self.value(text, #"signerkit_request_duration_seconds_sum{method="personal_sign"}"#).flatMap(
            Double.init)
        #expect(sum.map { abs($0 - 4000 * 0.0035) < 1e-9 } == true, "\(sum ?? -1)")
        let other = #"signerkit_request_duration_seconds_bucket{method="other",le="#
        #expect(Self.value(text, other + #""10.0"}"#) == "0" && Self.value(text, other + #""+Inf"}"#) == quarter)
        #expect(Self.value(text, #"signerkit_signatures_total{backend="PrehashBackend(Key)"}"#) == quarter)
        #expect(Self.value(text, #"signerkit_signatures_total{backend="Custom \"hsm\""}"#) == quarter, "escaped")
        #expect(Self.value(text, "signerkit_upstream_errors_total") == quarter)
        #expect(Self.value(text, "signerkit_policy_refusals_total") == "0")
        #expect(Self.value(text, "signerkit_unauthorized_total") == quarter)
    }

    @Test("a method nobody called has no series")
    func uncalledMethods() {
        let metrics = ServiceMetrics(knownMethods: ["personal_sign", "eth_chainId"])
        metrics.record([Self.record("eth_chainId", ms: 1)])
        let text = metrics.exposition
        #expect(!text.contains("personal_sign") && !text.contains(#"method="other""#), "\(text)")
        #expect(Self.value(text, #"signerkit_requests_total{method="eth_chainId",outcome="ok"}"#) == "1")
        #expect(Self.value(text, #"signerkit_request_duration_seconds_bucket{method="eth_chainId",le="0.001"}"#) == "1")
        #expect(text.hasSuffix("signerkit_overloaded_total 0\n"))
    }
}
