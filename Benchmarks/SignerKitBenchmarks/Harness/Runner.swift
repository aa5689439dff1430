/// How long to warm up and sample each case.
struct RunSettings {
    /// Aim for samples of about this length (the inner iteration count is calibrated to it).
    var targetSampleNanoseconds: UInt64
    /// Time spent running the case untimed-for-results before sampling (includes calibration).
    var warmupNanoseconds: UInt64
    /// Sampling time per case.
    var budgetNanoseconds: UInt64
    /// Take at least this many samples, even if that overruns the budget (up to 10× the budget).
    var minimumSamples: Int
    /// Never take more samples than this (the sample array is preallocated to this size).
    var maximumSamples: Int

    /// ~3 ms samples for ~0.3 s per case.
    static let full = RunSettings(
        targetSampleNanoseconds: 3_000_000, warmupNanoseconds: 50_000_000, budgetNanoseconds: 300_000_000,
        minimumSamples: 10, maximumSamples: 4_096)

    /// ~2 ms samples for ~0.03 s per case (CI, smoke tests).
    static let quick = RunSettings(
        targetSampleNanoseconds: 2_000_000, warmupNanoseconds: 6_000_000, budgetNanoseconds: 30_000_000,
        minimumSamples: 5, maximumSamples: 4_096)
}

/// The timing result of one case, per iteration.
struct BenchmarkMeasurement {
    /// Median time of one iteration across samples, in nanoseconds.
    let medianNanoseconds: Double
    /// Fastest sample's time per iteration, in nanoseconds.
    let minimumNanoseconds: Double
    /// Iterations per sample after calibration.
    let iterationsPerSample: Int
    /// Number of samples taken.
    let samples: Int
    /// Total iterations timed (`iterationsPerSample × samples`), excluding warm-up.
    var iterations: Int { iterationsPerSample * samples }
}

/// Calibrates, warms up and samples `benchmark`.
///
/// The timed region is exactly `clock_gettime; run(n); clock_gettime` — the harness does no work and no
/// allocation inside it (the sample array is reserved up front).
func measureBenchmark(_ benchmark: Benchmark, settings: RunSettings) -> BenchmarkMeasurement {
    let run = benchmark.run

    @inline(__always) func timeSample(_ iterations: Int) -> UInt64 {
        let start = monotonicNanoseconds()
        run(iterations)
        return monotonicNanoseconds() &- start
    }

    let target = settings.targetSampleNanoseconds

    // 1. Calibrate: grow n geometrically until a sample takes at least a quarter of the target.
    var iterations = 1
    var elapsed = timeSample(iterations)
    var spent = elapsed
    while elapsed < target / 4 && iterations < (1 << 40) {
        let growth = elapsed == 0 ? 16 : min(16, max(2, Int((target / 4) / max(elapsed, 1)) + 1))
        iterations *= growth
        elapsed = timeSample(iterations)
        spent &+= elapsed
    }
    var bestPerIteration = Double(elapsed) / Double(iterations)

    // 2. Warm up at roughly the target sample length; keep the fastest per-iteration time seen, which is
    //    the steady-state estimate (slow outliers come from cold caches, page faults, preemption).
    func iterationsForTarget() -> Int { max(1, Int(Double(target) / max(bestPerIteration, 0.001))) }
    iterations = iterationsForTarget()
    while spent < settings.warmupNanoseconds {
        let sample = timeSample(iterations)
        spent &+= sample
        bestPerIteration = min(bestPerIteration, Double(sample) / Double(iterations))
        iterations = iterationsForTarget()
    }

    // 3. Sample with a fixed n.
    var samples: [UInt64] = []
    samples.reserveCapacity(settings.maximumSamples)
    let samplingStart = monotonicNanoseconds()
    while true {
        samples.append(timeSample(iterations))
        let total = monotonicNanoseconds() &- samplingStart
        if samples.count >= settings.maximumSamples { break }
        if total >= settings.budgetNanoseconds && samples.count >= settings.minimumSamples { break }
        if total >= settings.budgetNanoseconds * 10 && samples.count >= 3 { break }
    }

    let perIteration = samples.map { Double($0) / Double(iterations) }.sorted()
    let middle = perIteration.count / 2
    let median =
        perIteration.count % 2 == 1 ? perIteration[middle] : (perIteration[middle - 1] + perIteration[middle]) / 2
    return BenchmarkMeasurement(
        medianNanoseconds: median, minimumNanoseconds: perIteration[0], iterationsPerSample: iterations,
        samples: samples.count)
}
