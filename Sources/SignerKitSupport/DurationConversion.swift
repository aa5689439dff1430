/// The conversions of `Duration` the package needs, each in one place.
extension Duration {
    /// The duration in seconds, as a floating-point number (for APIs that take a `TimeInterval`).
    package var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded up (so a positive duration is never 0 ms), clamped to
    /// `0...Int64.max`.
    package var millisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return .max }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        let (total, overflowAdding) = whole.addingReportingOverflow(fraction)
        return overflowAdding ? .max : total
    }
}
