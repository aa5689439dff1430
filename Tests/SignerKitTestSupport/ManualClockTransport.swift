import SignerKitHTTP

/// The ``HTTPTransport`` of a client waiting on a ``ManualClock`` that talks to a real server: a request's
/// deadline, read on the manual clock, becomes the same time left on the real clock. (A manual clock stands
/// still while real time passes, so a deadline passed on as it is would run out as the test runs, by as much
/// as a loaded machine takes.)
public struct ManualClockTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let clock: ManualClock

    /// Sends through `inner`, deadlines translated from `clock`.
    public init(_ inner: any HTTPTransport, clock: ManualClock) {
        self.inner = inner
        self.clock = clock
    }

    /// Sends `request` with the time it has left on the manual clock, from now on the real one.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        var request = request
        request.deadline = ContinuousClock.now.advanced(by: clock.now.duration(to: request.deadline))
        return try await inner.send(request)
    }
}
