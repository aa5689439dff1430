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
    /// The sampling budget is spent in this many rounds; each round samples every case in turn.
    var rounds: Int

    /// ~3 ms samples for ~0.3 s per case, in 10 rounds.
    static let full = RunSettings(
        targetSampleNanoseconds: 3_000_000, warmupNanoseconds: 50_000_000, budgetNanoseconds: 300_000_000,
        minimumSamples: 10, maximumSamples: 4_096, rounds: 10)

    /// ~2 ms samples for ~0.03 s per case (CI, smoke tests), in 2 rounds.
    static let quick = RunSettings(
        targetSampleNanoseconds: 2_000_000, warmupNanoseconds: 6_000_000, budgetNanoseconds: 30_000_000,
        minimumSamples: 5, maximumSamples: 4_096, rounds: 2)
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
    /// Median time of one iteration within each sampling round, in round order.
    let roundMedians: [Double]
    /// Total iterations timed (`iterationsPerSample × samples`), excluding warm-up.
    var iterations: Int { iterationsPerSample * samples }

    /// `self / (units × baseline)`, robust to machine noise: the median over rounds of the ratio of the
    /// two round medians (both sampled within the same round, close together in time).
    func ratio(to baseline: BenchmarkMeasurement, units: Double) -> Double {
        let perRound = zip(roundMedians, baseline.roundMedians).map { $0 / (units * $1) }
        return perRound.isEmpty ? medianNanoseconds / (units * baseline.medianNanoseconds) : median(perRound)
    }
}

/// The median of `values` (not empty).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// What ``measureBenchmarks(_:settings:)`` found for one case.
struct CaseMeasurements {
    /// The case itself.
    let measurement: BenchmarkMeasurement
    /// Its baseline, sampled right before it in every round (nil for a case without a baseline).
    let pairedBaseline: BenchmarkMeasurement?
}

/// Calibrates and warms up every case, then samples them in interleaved rounds.
///
/// In every round each case is sampled right after a sample of its own baseline, so a case and
/// its baseline are measured back to back and a burst of noise from the machine (another tenant, a
/// frequency change) lands on both rather than skewing their ratio. `baselines[i]` is the index in
/// `benchmarks` of case i's baseline.
func measureBenchmarks(_ benchmarks: [Benchmark], baselines: [Int?], settings: RunSettings) -> [CaseMeasurements] {
    let samplers = benchmarks.map { CaseSampler($0, settings: settings) }
    // A second sampler of the baseline per dependent case, so the pairs never share rounds' samples.
    let paired: [CaseSampler?] = baselines.map { index in index.map { CaseSampler(benchmarks[$0], settings: settings) }
    }
    let rounds = max(1, settings.rounds)
    let slice = settings.budgetNanoseconds / UInt64(rounds)
    let minimumPerRound = (settings.minimumSamples + rounds - 1) / rounds
    for _ in 0..<rounds {
        for (sampler, baseline) in zip(samplers, paired) {
            baseline?.sample(budget: slice, minimumSamples: minimumPerRound)
            sampler.sample(budget: slice, minimumSamples: minimumPerRound)
        }
    }
    return zip(samplers, paired).map {
        CaseMeasurements(measurement: $0.measurement(), pairedBaseline: $1?.measurement())
    }
}

/// One case under measurement: its calibrated iterations per sample and the samples taken so far.
final class CaseSampler {
    private let run: (Int) -> Void
    private let settings: RunSettings
    /// Iterations per sample, fixed after calibration.
    private var iterations = 1
    private var samples: [UInt64] = []
    /// Where each round's samples start in ``samples``.
    private var roundStarts: [Int] = []

    /// Calibrates and warms up `benchmark`.
    init(_ benchmark: Benchmark, settings: RunSettings) {
        run = benchmark.run
        self.settings = settings
        samples.reserveCapacity(settings.maximumSamples)
        let target = settings.targetSampleNanoseconds

        // 1. Calibrate: grow n geometrically until a sample takes at least a quarter of the target.
        var elapsed = timeSample(iterations)
        var spent = elapsed
        while elapsed < target / 4 && iterations < (1 << 40) {
            let growth = elapsed == 0 ? 16 : min(16, max(2, Int((target / 4) / max(elapsed, 1)) + 1))
            iterations *= growth
            elapsed = timeSample(iterations)
            spent &+= elapsed
        }
        var bestPerIteration = Double(elapsed) / Double(iterations)

        // 2. Warm up at roughly the target sample length; keep the fastest per-iteration time seen, which
        //    is the steady-state estimate (slow outliers come from cold caches, page faults, preemption).
        func iterationsForTarget() -> Int { max(1, Int(Double(target) / max(bestPerIteration, 0.001))) }
        iterations = iterationsForTarget()
        while spent < settings.warmupNanoseconds {
            let sample = timeSample(iterations)
            spent &+= sample
            bestPerIteration = min(bestPerIteration, Double(sample) / Double(iterations))
            iterations = iterationsForTarget()
        }
    }

    @inline(__always) private func timeSample(_ iterations: Int) -> UInt64 {
        let start = monotonicNanoseconds()
        run(iterations)
        return monotonicNanoseconds() &- start
    }

    /// Samples for about `budget` nanoseconds (at least `minimumSamples`, at most 10× the budget), after
    /// one untimed sample that brings the case's code and data back into the caches.
    func sample(budget: UInt64, minimumSamples: Int) {
        roundStarts.append(samples.count)
        _ = timeSample(iterations)
        let start = monotonicNanoseconds()
        var taken = 0
        while samples.count < settings.maximumSamples {
            samples.append(timeSample(iterations))
            taken += 1
            let total = monotonicNanoseconds() &- start
            if total >= budget && taken >= minimumSamples { break }
            if total >= budget * 10 && taken >= 1 { break }
        }
    }

    /// Median and minimum per iteration over every sample taken, and the median of each round.
    func measurement() -> BenchmarkMeasurement {
        let perIteration = samples.map { Double($0) / Double(iterations) }
        let bounds = zip(roundStarts, roundStarts.dropFirst() + [samples.count])
        let roundMedians = bounds.compactMap { start, end in
            end > start ? median(Array(perIteration[start..<end])) : nil
        }
        return BenchmarkMeasurement(
            medianNanoseconds: median(perIteration), minimumNanoseconds: perIteration.min() ?? 0,
            iterationsPerSample: iterations, samples: samples.count, roundMedians: roundMedians)
    }
}
