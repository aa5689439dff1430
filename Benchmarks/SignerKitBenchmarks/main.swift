// SignerKit benchmarks — entry point.
//
// Run (builds in release mode, prints the table, writes .benchmarks/results.json):
//
//     swift package --allow-writing-to-package-directory benchmark [--filter SUBSTRING] [--quick] [--list]
//
// ADDING BENCHMARKS
//   1. Create `Benchmarks/SignerKitBenchmarks/<Area>Benchmarks.swift` with a function
//          func <area>Benchmarks() -> [Benchmark]
//      returning your cases (see KeccakBenchmarks.swift for the pattern, and Harness/Benchmark.swift for
//      the rules: `run(n)` performs n iterations, no allocation in the loop, feed results to `blackHole`).
//   2. Add one line `allBenchmarks += <area>Benchmarks()` under "Registration" below. That order is the order
//      of the table (baselines are always measured before the cases compared against them).
//   3. Optionally compare against another case: `baseline: KeccakCase.referencePermutation,
//      unitsPerIteration: 17` reports median / (17 × median(baseline)), i.e. "N× its 17 permutations".
//      Cases compared against the C reference permutation (Keccak-based work) also get a "perm-eq" column:
//      their median in units of the reference's median.
//   4. Correctness checks that must pass before anything is timed are `SelfCheck`s: `allSelfChecks.append(…)`.
//   Fixtures: the tests' one copy of each (SignerKitTestSupport's `Vectors` and `TestKeys`, through
//   BenchmarkFixtures), loaded when building the cases (never inside `run`).

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Registration — one line per file, in table order.

var allBenchmarks: [Benchmark] = []
allBenchmarks += keccakBenchmarks()
allBenchmarks += eip712Benchmarks()
allBenchmarks += pkcs11Benchmarks()
allBenchmarks += kmsBenchmarks()
allBenchmarks += dispatcherBenchmarks()
allBenchmarks += smartAccountBenchmarks()
allBenchmarks += serviceBenchmarks()
allBenchmarks += commandLineBenchmarks()

var allSelfChecks: [SelfCheck] = []
allSelfChecks.append(keccakReferenceSelfCheck)
allSelfChecks.append(eip712SelfCheck)

// MARK: Run

exit(
    runBenchmarks(
        allBenchmarks,
        selfChecks: allSelfChecks,
        referenceCase: KeccakCase.referencePermutation,
        arguments: Array(CommandLine.arguments.dropFirst())))
