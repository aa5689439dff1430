/// One benchmark case.
///
/// `run(n)` must perform the measured operation exactly `n` times. The harness calls it once per sample,
/// so the closure call itself is amortized over `n` iterations. Keep the loop body free of allocations:
/// allocate inputs and scratch buffers when the case is built (see `ScratchBuffer`), not inside `run`.
/// Feed results into an accumulator and hand that to `blackHole` after the loop, so the optimizer
/// cannot delete the work.
///
/// Ratios: if `baseline` names another case, the report shows
/// `median(self) / (unitsPerIteration × median(baseline))`, e.g. a hash that costs 2 permutations
/// declares `baseline: "keccak-f1600 (C reference -O3)", unitsPerIteration: 2`.
struct Benchmark {
    /// Unique display name; also what `--filter` matches against.
    let name: String
    /// Coarse grouping ("keccak", "eip712", …); also matched by `--filter`.
    let group: String
    /// Name of the case this one is compared against, if any.
    let baseline: String?
    /// How many baseline iterations one iteration of this case is "worth" (the ratio's multiplier).
    let unitsPerIteration: Double
    /// Performs `n` iterations of the measured operation.
    let run: (Int) -> Void

    /// Creates a case. `run` receives the iteration count for one sample.
    init(
        name: String,
        group: String,
        baseline: String? = nil,
        unitsPerIteration: Double = 1,
        run: @escaping (Int) -> Void
    ) {
        precondition(unitsPerIteration > 0, "unitsPerIteration must be positive")
        self.name = name
        self.group = group
        self.baseline = baseline
        self.unitsPerIteration = unitsPerIteration
        self.run = run
    }
}

/// A correctness check run once at startup, before anything is timed.
///
/// `check` returns `nil` when everything is fine and a human-readable failure description otherwise;
/// any failure aborts the benchmark run (timing wrong code is worse than timing nothing).
struct SelfCheck: Sendable {
    /// What is being checked, for the log line.
    let name: String
    /// Returns `nil` on success, a failure message otherwise.
    let check: @Sendable () -> String?
}
