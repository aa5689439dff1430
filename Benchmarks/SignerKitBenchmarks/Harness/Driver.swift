/// Runs the benchmark executable: parses options, runs self-checks, measures the selected cases
/// (plus the baselines they are compared against) in interleaved rounds, prints the table and writes JSON.
///
/// - Parameters:
///   - benchmarks: every registered case, in display order.
///   - selfChecks: correctness checks run before timing; any failure aborts the run.
///   - referenceCase: the case Keccak-based rows are expressed in units of (the "perm-eq" column: the
///     reference and the cases whose baseline it is); always measured.
///   - arguments: command-line arguments without the executable name.
/// - Returns: the process exit status.
func runBenchmarks(
    _ benchmarks: [Benchmark], selfChecks: [SelfCheck], referenceCase: String?, arguments: [String]
) -> Int32 {
    let options: BenchmarkOptions
    do {
        options = try BenchmarkOptions.parse(arguments)
    } catch {
        Console.err("error: \(error.description)\n\n\(BenchmarkOptions.usage)")
        return 2
    }
    if options.help {
        Console.out(BenchmarkOptions.usage)
        return 0
    }

    // Registry sanity.
    var byName: [String: Benchmark] = [:]
    for benchmark in benchmarks {
        guard byName.updateValue(benchmark, forKey: benchmark.name) == nil else {
            Console.err("error: two benchmark cases are named '\(benchmark.name)'")
            return 1
        }
    }
    for benchmark in benchmarks {
        if let baseline = benchmark.baseline, byName[baseline] == nil {
            Console.err("warning: '\(benchmark.name)' declares unknown baseline '\(baseline)'; its ratio will be n/a")
        }
    }
    if let referenceCase, byName[referenceCase] == nil {
        Console.err("warning: reference case '\(referenceCase)' is not registered; perm-eq will be n/a")
    }

    if options.list {
        let width = benchmarks.map(\.name.count).max() ?? 0
        for benchmark in benchmarks {
            var line = TableFormat.padRight(benchmark.group, 10) + "  " + TableFormat.padRight(benchmark.name, width)
            if let baseline = benchmark.baseline {
                line += "  (vs \(TableFormat.multiplier(benchmark.unitsPerIteration)) × \(baseline))"
            }
            Console.out(line)
        }
        return 0
    }

    let selected = benchmarks.filter(options.selects)
    guard !selected.isEmpty else {
        Console.err("error: no benchmark case matches \(options.filters.map { "'\($0)'" }.joined(separator: ", "))")
        return 1
    }

    // Baselines (and the reference) come before the cases compared against them, in the table and in
    // every sampling round.
    var order: [Benchmark] = []
    var planned: Set<String> = []
    var visiting: Set<String> = []
    func plan(_ benchmark: Benchmark) {
        guard !planned.contains(benchmark.name), !visiting.contains(benchmark.name) else { return }
        visiting.insert(benchmark.name)
        if let baseline = benchmark.baseline, let dependency = byName[baseline] { plan(dependency) }
        visiting.remove(benchmark.name)
        planned.insert(benchmark.name)
        order.append(benchmark)
    }
    if let referenceCase, let reference = byName[referenceCase] { plan(reference) }
    selected.forEach(plan)

    for selfCheck in selfChecks {
        if let failure = selfCheck.check() {
            Console.err("self-check FAILED: \(selfCheck.name)\n  \(failure)\nrefusing to benchmark incorrect code")
            return 1
        }
        Console.out("self-check ok: \(selfCheck.name)")
    }

    #if DEBUG
        Console.err("warning: this is a debug build; timings are not representative (use the benchmark plugin)")
    #endif

    let settings = options.quick ? RunSettings.quick : RunSettings.full
    let extra = order.count - selected.count
    Console.out(
        "SignerKit benchmarks — \(MachineInfo.summary()); \(options.quick ? "quick" : "full") run, "
            + "\(order.count) case\(order.count == 1 ? "" : "s")"
            + (extra > 0 ? " (\(extra) added as baseline/reference)" : ""))
    Console.out()
    let table = TablePrinter(cases: order, referenceName: referenceCase)
    Console.out(
        "calibrating \(order.count) cases, then sampling them in \(settings.rounds) rounds, each case right after "
            + "its baseline…")
    let index = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1.name, $0) })
    let measured = measureBenchmarks(
        order, baselines: order.map { $0.baseline.flatMap { index[$0] } }, settings: settings)
    Console.out()
    Console.out(table.header())

    let referenceMeasurement = referenceCase.flatMap { index[$0] }.map { measured[$0].measurement }
    var results: [BenchmarkResult] = []
    for (benchmark, result) in zip(order, measured) {
        let measurement = result.measurement
        let ratio = result.pairedBaseline.map { measurement.ratio(to: $0, units: benchmark.unitsPerIteration) }
        // perm-eq means something only for work made of Keccak permutations: the reference itself and
        // the cases compared against it (a signature in permutations is a meaningless number).
        let keccakBased =
            benchmark.name == referenceCase || (referenceCase != nil && benchmark.baseline == referenceCase)
        let equivalents =
            keccakBased ? referenceMeasurement.map { measurement.medianNanoseconds / $0.medianNanoseconds } : nil
        let result = BenchmarkResult(
            name: benchmark.name, group: benchmark.group, measurement: measurement, baseline: benchmark.baseline,
            multiplier: benchmark.unitsPerIteration, ratio: ratio, referenceEquivalents: equivalents)
        results.append(result)
        Console.out(table.row(result))
    }
    Console.out()
    if let referenceCase {
        Console.out(
            "perm-eq: median in units of the median of one '\(referenceCase)' (Keccak-based cases only).")
    }
    if settings.rounds > 1 {
        Console.out(
            "time ratio: the case's time ÷ its baseline's (below 1× is faster), the median over the \(settings.rounds) "
                + "rounds of the ratio of the case's and the baseline's medians sampled one after the other; median "
                + "and min: over all the case's samples.")
    } else {
        Console.out("time ratio: the case's time ÷ its baseline's (below 1× is faster).")
    }
    if options.quick {
        Console.out(
            "quick run: \(settings.rounds) short rounds per case, so these ratios are indicative only; "
                + "run without --quick for figures to compare or quote.")
    }

    if let jsonPath = options.jsonPath {
        do {
            let document = resultsJSON(results, quick: options.quick, filters: options.filters)
            try writeResultsFile(document.rendered() + "\n", to: jsonPath)
            Console.out("results written to \(jsonPath)")
        } catch {
            Console.err("error: could not write \(jsonPath): \(error)")
            return 1
        }
    }
    return 0
}
