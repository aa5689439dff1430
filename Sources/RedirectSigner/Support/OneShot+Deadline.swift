import EthereumPrimitives

extension OneShot {
    /// The value, or `expired` once `clock` reaches `deadline` first, or `cancelled` when the calling task is
    /// cancelled first; whichever comes first is the value from then on. The bounded waits of a round trip
    /// (a request for its callback, a deliverer for its verdict) use it, so a test's manual clock decides
    /// when their time is up.
    package func value(
        until deadline: ContinuousClock.Instant, on clock: any SignerClock, expired: Value, cancelled: Value
    ) async -> Value {
        let timer = Task {
            do {
                try await clock.sleep(until: deadline)
                fulfill(expired)
            } catch {}
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await value()
        } onCancel: {
            fulfill(cancelled)
        }
    }
}
