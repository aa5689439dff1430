import Foundation
import SignerKitHTTP
import SignerKitTestSupport
import Testing

/// ``RetryingHTTPCall`` over a scripted transport and a manual clock: every wait is checked on the clock,
/// nothing sleeps for real.
@Suite("Retrying HTTP call")
struct RetryingHTTPCallTests {
    typealias Outcome = Result<HTTPResponse, RetryingHTTPCallError>

    /// Back-off 100 ms doubling up to 400 ms, no jitter, Retry-After capped at 2 s, 3 retries.
    let policy = HTTPRetryPolicy(
        maxRetries: 3, baseDelay: .milliseconds(100), maxDelay: .milliseconds(400), retryAfterCap: .seconds(2))

    func request(_ clock: ManualClock, within timeout: Duration = .seconds(30)) throws -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: try #require(URL(string: "http://node.test/rpc")), body: Array("{}".utf8),
            deadline: clock.now.advanced(by: timeout))
    }

    /// Runs the call in a task of its own, its outcome as a value.
    func start(
        _ call: RetryingHTTPCall, _ request: HTTPRequest, idempotent: Bool, attemptTimeout: Duration? = nil
    ) -> Task<Outcome, Never> {
        Task {
            do throws(RetryingHTTPCallError) {
                return .success(try await call.send(request, idempotent: idempotent, attemptTimeout: attemptTimeout))
            } catch { return .failure(error) }
        }
    }

    @Test("an idempotent request is repeated after a 503, once the back-off has passed on the clock")
    func serverErrorThenSuccess() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.status(503), .status(200, body: "ok")])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        let request = try request(clock)
        let task = start(call, request, idempotent: true)
        try #require(await clock.asleep(orDone: task), "a 503 to an idempotent request is followed by a wait")
        #expect(transport.requests.count == 1)
        clock.advance(by: .milliseconds(99))
        #expect(clock.sleeperCount == 1, "the first back-off is 100 ms")
        #expect(transport.requests.count == 1)
        clock.advance(by: .milliseconds(1))
        try #require(clock.sleeperCount == 0, "woken at 100 ms")
        let outcome = try await clock.value(of: task)
        #expect(outcome == .success(HTTPResponse(status: 200, headers: [], body: Array("ok".utf8))))
        #expect(transport.requests.count == 2)
        // Both attempts carry the call's deadline and the same body.
        #expect(transport.requests.map(\.deadline) == [request.deadline, request.deadline])
        #expect(transport.requests.map(\.body) == [request.body, request.body])
    }

    @Test("Retry-After replaces the back-off and is capped by the policy")
    func retryAfter() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([
            .status(429, headers: ["Retry-After": "1"]), .status(503, headers: ["Retry-After": "1e16"]),
            .status(200),
        ])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        let task = start(call, try request(clock, within: .seconds(60)), idempotent: true)

        try #require(await clock.asleep(orDone: task))
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1, "Retry-After: 1 is a 1 s wait, not the 100 ms back-off")
        clock.advance(by: .milliseconds(1))
        try #require(clock.sleeperCount == 0, "woken at 1 s")

        try #require(await clock.asleep(orDone: task))
        #expect(transport.requests.count == 2)
        clock.advance(by: .milliseconds(1999))
        #expect(clock.sleeperCount == 1, "Retry-After: 1e16 waits the 2 s cap")
        clock.advance(by: .milliseconds(1))
        try #require(clock.sleeperCount == 0, "woken at the cap")
        #expect(try await clock.value(of: task).map(\.status) == .success(200))
        #expect(transport.requests.count == 3)
    }

    @Test(
        "a non-idempotent request sent without an answer is never repeated: its outcome is unknown",
        arguments: [HTTPError.outcomeUnknown("connection reset"), .timeout(requestSent: true)])
    func unknownOutcome(failure: HTTPError) async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.failure(failure), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        // With an attempt timeout, so a timed-out idempotent attempt would be repeated.
        let task = start(call, try request(clock), idempotent: false, attemptTimeout: .seconds(5))
        #expect(try await clock.value(of: task) == .failure(.outcomeUnknown(failure)))
        #expect(transport.requests.count == 1)
        #expect(transport.queuedCount == 1)

        // The same failure for an idempotent request is repeated.
        let again = ScriptedHTTPTransport([.failure(failure), .status(200)])
        let idempotentCall = RetryingHTTPCall(transport: again, policy: policy, clock: clock)
        let repeated = start(idempotentCall, try request(clock), idempotent: true, attemptTimeout: .seconds(5))
        try #require(await clock.asleep(orDone: repeated))
        clock.advance(by: .milliseconds(100))
        #expect(try await clock.value(of: repeated).map(\.status) == .success(200))
        #expect(again.requests.count == 2)
    }

    @Test("a request that never left is repeated even when it is not idempotent; a 5xx answer to it is returned")
    func notSentIsRepeated() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.failure(.notSent("connection refused")), .status(503), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        let task = start(call, try request(clock), idempotent: false)
        try #require(await clock.asleep(orDone: task))
        clock.advance(by: .milliseconds(100))
        #expect(
            try await clock.value(of: task).map(\.status) == .success(503), "the server answered: not repeated")
        #expect(transport.requests.count == 2)
    }

    @Test("the deadline stops the retries: no wait that would reach it is started")
    func deadline() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.status(503), .status(502), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        // 250 ms: the first back-off (100 ms) fits, the second (200 ms more) would end at 300 ms.
        let request = try request(clock, within: .milliseconds(250))
        let task = start(call, request, idempotent: true)
        try #require(await clock.asleep(orDone: task))
        clock.advance(by: .milliseconds(100))
        let outcome = try await clock.value(of: task)
        #expect(outcome == .failure(.noTimeForRetry(after: .success(HTTPResponse(status: 502, headers: [], body: [])))))
        #expect(transport.requests.count == 2)
        #expect(clock.sleeperCount == 0)
        #expect(transport.requests.allSatisfy { $0.deadline == request.deadline })

        // A Retry-After beyond the deadline is not waited either.
        let limited = ScriptedHTTPTransport([.status(429, headers: ["Retry-After": "1"]), .status(200)])
        let late = start(
            RetryingHTTPCall(transport: limited, policy: policy, clock: clock),
            try self.request(clock, within: .milliseconds(500)), idempotent: true)
        guard case .failure(.noTimeForRetry(.success(let answer))) = try await clock.value(of: late) else {
            Issue.record("expected noTimeForRetry"); return
        }
        #expect(answer.status == 429)
        #expect(limited.requests.count == 1)
    }

    @Test("a 4xx other than 429 is returned at once, not repeated", arguments: [400, 401, 404, 409, 422])
    func clientErrors(status: Int) async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.status(status), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        let task = start(call, try request(clock), idempotent: true)
        #expect(try await clock.value(of: task).map(\.status) == .success(status))
        #expect(transport.requests.count == 1)
    }

    @Test("an answer the caller calls definitive is returned whatever its status")
    func definitiveAnswer() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.status(503, body: #"{"error":{}}"#), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        let deadline = clock.now.advanced(by: .seconds(30))
        let url = try #require(URL(string: "http://node.test/rpc"))
        let task = Task { () async -> Outcome in
            do throws(RetryingHTTPCallError) {
                return .success(
                    try await call.send(
                        idempotent: true, within: .deadline(deadline),
                        isDefinitive: { $0.body.starts(with: Array(#"{"error""#.utf8)) }
                    ) { HTTPRequest(method: "POST", url: url, deadline: $0) })
            } catch { return .failure(error) }
        }
        #expect(try await clock.value(of: task).map(\.status) == .success(503))
        #expect(transport.requests.count == 1)
    }

    @Test("retries are bounded: after maxRetries the last answer or failure stands")
    func exhausted() async throws {
        let clock = ManualClock()
        let bounded = HTTPRetryPolicy(maxRetries: 1, baseDelay: .milliseconds(100), maxDelay: .milliseconds(100))
        let transport = ScriptedHTTPTransport([.status(503), .status(500), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: bounded, clock: clock)
        let task = start(call, try request(clock), idempotent: true)
        try #require(await clock.asleep(orDone: task))
        clock.advance(by: .milliseconds(100))
        #expect(try await clock.value(of: task).map(\.status) == .success(500))
        #expect(transport.requests.count == 2)

        let refused = ScriptedHTTPTransport([.failure(.notSent("refused")), .failure(.notSent("refused again"))])
        let failing = start(
            RetryingHTTPCall(transport: refused, policy: bounded, clock: clock), try request(clock),
            idempotent: true)
        try #require(await clock.asleep(orDone: failing))
        clock.advance(by: .milliseconds(100))
        #expect(
            try await clock.value(of: failing)
                == .failure(.failed(.notSent("refused again"), earlier: .failure(.notSent("refused")))))
    }

    @Test("an attempt timeout is repeated while the call has time; the call's own deadline ends the call")
    func timeouts() async throws {
        let clock = ManualClock()
        // Each attempt gets 1 s of the call's 10 s; the first one times out before it was sent.
        let transport = ScriptedHTTPTransport([.failure(.timeout(requestSent: false)), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        let request = try request(clock, within: .seconds(10))
        let start = clock.now
        let task = self.start(call, request, idempotent: true, attemptTimeout: .seconds(1))
        try #require(await clock.asleep(orDone: task))
        clock.advance(by: .milliseconds(100))
        #expect(try await clock.value(of: task).map(\.status) == .success(200))
        #expect(
            transport.requests.map(\.deadline) == [
                start.advanced(by: .seconds(1)), start.advanced(by: .milliseconds(1100)),
            ])

        // One deadline for the call: the timed-out attempt had all of it, so nothing is repeated.
        let whole = ScriptedHTTPTransport([.failure(.timeout(requestSent: false)), .status(200)])
        let ended = self.start(
            RetryingHTTPCall(transport: whole, policy: policy, clock: clock), request,
            idempotent: true)
        #expect(try await clock.value(of: ended) == .failure(.failed(.timeout(requestSent: false), earlier: nil)))
        #expect(whole.requests.count == 1)

        // A retry that times out before it is sent reports the failure that made it necessary.
        let retried = ScriptedHTTPTransport([.status(503), .failure(.timeout(requestSent: false))])
        let late = self.start(
            RetryingHTTPCall(transport: retried, policy: policy, clock: clock), request,
            idempotent: true)
        try #require(await clock.asleep(orDone: late))
        clock.advance(by: .milliseconds(100))
        #expect(
            try await clock.value(of: late)
                == .failure(
                    .failed(
                        .timeout(requestSent: false),
                        earlier: .success(HTTPResponse(status: 503, headers: [], body: [])))
                ))
    }

    @Test("cancellation ends a wait between attempts; nothing more is sent")
    func cancellation() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.status(503), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        let task = start(call, try request(clock), idempotent: true)
        try #require(await clock.asleep(orDone: task))
        task.cancel()
        #expect(try await clock.value(of: task) == .failure(.cancelled(requestSent: false)))
        #expect(clock.sleeperCount == 0)
        #expect(transport.requests.count == 1)
    }

    @Test("cancellation reported by the transport ends the call, with whether the request was sent")
    func transportCancellation() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([.failure(.cancelled(requestSent: true)), .status(200)])
        let call = RetryingHTTPCall(transport: transport, policy: policy, clock: clock)
        let task = start(call, try request(clock), idempotent: true)
        #expect(try await clock.value(of: task) == .failure(.cancelled(requestSent: true)))
        #expect(transport.requests.count == 1)
    }

    @Test("the policy: back-off doubling up to its cap, jitter within its fraction, which statuses repeat")
    func policyValues() {
        #expect((0..<5).map(policy.backoff(retry:)) == [100, 200, 400, 400, 400].map { .milliseconds($0) })
        #expect(policy.backoff(retry: -3) == .milliseconds(100))
        #expect(policy.backoff(retry: .max) == .milliseconds(400))
        let jittered = HTTPRetryPolicy(
            maxRetries: 1, baseDelay: .seconds(1), maxDelay: .seconds(1), jitter: 0.25)
        for _ in 0..<50 {
            let delay = jittered.backoff(retry: 0)
            #expect(delay > .milliseconds(749) && delay <= .seconds(1))
        }
        #expect(policy.delay(retry: 1, retryAfter: "0.5") == .milliseconds(500))
        #expect(policy.delay(retry: 1, retryAfter: "soon") == .milliseconds(200))
        #expect(policy.delay(retry: 1, retryAfter: nil) == .milliseconds(200))
        #expect(policy.repeats(status: 503, idempotent: true))
        #expect(policy.repeats(status: 429, idempotent: true))
        #expect(!policy.repeats(status: 503, idempotent: false))
        #expect(!policy.repeats(status: 429, idempotent: false))
        #expect(!policy.repeats(status: 404, idempotent: true))
        var rateLimited = policy
        rateLimited.unprocessedStatuses = [429]
        #expect(rateLimited.repeats(status: 429, idempotent: false))
        #expect(!rateLimited.repeats(status: 503, idempotent: false))
    }
}
