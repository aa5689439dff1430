import Foundation

/// When a ``RetryingHTTPCall`` repeats a request, and how long it waits first.
///
/// The back-off before retry `n` (0-based) is `baseDelay · 2ⁿ`, at most `maxDelay`, shortened at random by up
/// to `jitter` of itself; an answer's `Retry-After` replaces it, capped at `retryAfterCap`.
///
/// ```swift
/// let policy = HTTPRetryPolicy(maxRetries: 2, baseDelay: .milliseconds(100), maxDelay: .milliseconds(1600))
/// policy.backoff(retry: 0)                       // 100 ms
/// policy.backoff(retry: 9)                       // 1.6 s
/// policy.delay(retry: 0, retryAfter: "120")      // 2 s (the cap)
/// ```
public struct HTTPRetryPolicy: Sendable, Equatable {
    /// 429 and every 5xx: the statuses worth repeating an idempotent request after.
    public static let standardRetryableStatuses: Set<Int> = Set([429]).union(500...599)

    /// Repeats after the first attempt.
    public var maxRetries: Int
    /// The back-off before the first retry.
    public var baseDelay: Duration
    /// The longest back-off.
    public var maxDelay: Duration
    /// The largest fraction of a back-off removed at random (0 disables jitter).
    public var jitter: Double
    /// The longest `Retry-After` honoured.
    public var retryAfterCap: Duration
    /// Statuses after which an idempotent request is repeated (429 and 5xx by default). Any other answer is
    /// returned to the caller.
    public var retryableStatuses: Set<Int>
    /// Statuses a server gives only to requests it did not act upon (for an API whose rate limiter answers
    /// 429 before anything runs), after which even a non-idempotent request is repeated. Empty by default:
    /// a non-idempotent request that got an answer is never repeated.
    public var unprocessedStatuses: Set<Int>

    /// A policy; negative durations and counts are taken as zero, `jitter` is clamped to `0...1` (NaN: 0).
    public init(
        maxRetries: Int, baseDelay: Duration, maxDelay: Duration, jitter: Double = 0,
        retryAfterCap: Duration = .seconds(2), retryableStatuses: Set<Int> = HTTPRetryPolicy.standardRetryableStatuses,
        unprocessedStatuses: Set<Int> = []
    ) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = max(.zero, baseDelay)
        self.maxDelay = max(.zero, maxDelay)
        self.jitter = min(1, max(0, jitter))
        self.retryAfterCap = max(.zero, retryAfterCap)
        self.retryableStatuses = retryableStatuses
        self.unprocessedStatuses = unprocessedStatuses
    }

    /// Whether an answer with `status` is repeated for a request that is (or is not) `idempotent`.
    public func repeats(status: Int, idempotent: Bool) -> Bool {
        unprocessedStatuses.contains(status) || (idempotent && retryableStatuses.contains(status))
    }

    /// The back-off before retry number `retry` (0-based): `baseDelay · 2^retry`, at most `maxDelay`, with jitter.
    public func backoff(retry: Int) -> Duration {
        var delay = baseDelay
        for _ in 0..<min(max(0, retry), 32) where delay < maxDelay { delay = delay * 2 }
        delay = min(delay, maxDelay)
        guard jitter > 0 else { return delay }
        return delay * (1 - jitter * Double.random(in: 0..<1))
    }

    /// The wait before retry number `retry` after an answer carrying `retryAfter` (seconds or an HTTP date,
    /// read against `now`): that value capped at ``retryAfterCap``, else (absent or unreadable) the back-off.
    public func delay(retry: Int, retryAfter: String?, now: Date = Date()) -> Duration {
        guard let retryAfter, let asked = RetryAfter.delay(retryAfter, now: now, cap: retryAfterCap) else {
            return backoff(retry: retry)
        }
        return asked
    }
}
